package result

// KindDoctor is a Document of `etcdlab doctor`: a read-only diagnosis of a
// live cluster.
const KindDoctor = "doctor"

// Doctor is what `etcdlab doctor` saw and concluded, step by step in the
// order the field reports work (membership, reads, CPU and memory,
// network, disk, the server's own complaints, logs, history, keyspace),
// then the findings ranked by how well their evidence explains a slow
// cluster.
type Doctor struct {
	// WindowSeconds is how long the members' metrics were watched (rates
	// and quantiles are over it).
	WindowSeconds float64 `json:"window_seconds"`
	// Members are the members as doctor found them.
	Members []DoctorMember `json:"members"`
	// Steps are the diagnosis steps in order, each with its checks and
	// what it could not see.
	Steps []DoctorStep `json:"steps"`
	// Findings are the conclusions, the best-explained first.
	Findings []Finding `json:"findings"`
	// Logs is the census of the members' logs (--logs); nil without.
	Logs *LogCensus `json:"logs,omitempty"`
	// Keyspace is the census of the keys (--keyspace); nil without.
	Keyspace *KeyspaceCensus `json:"keyspace,omitempty"`
	// History is what Prometheus recorded over a range (--prometheus);
	// nil without.
	History *DoctorHistory `json:"history,omitempty"`
}

// DoctorHistory is the members' metrics over a past range, read from a
// Prometheus server with PromQL.
type DoctorHistory struct {
	// URL is the Prometheus server (without credentials).
	URL string `json:"url"`
	// StartUnix and EndUnix bound the range; RateWindow is the range of
	// rate() and increase() in the queries ("5m"); StepSeconds the
	// resolution of range queries.
	StartUnix   float64 `json:"start_unix"`
	EndUnix     float64 `json:"end_unix"`
	RateWindow  string  `json:"rate_window"`
	StepSeconds float64 `json:"step_seconds"`
	// Instances are the members Prometheus scraped (its instance label).
	Instances []InstanceHistory `json:"instances"`
	// Queries are the PromQL expressions sent, for the record.
	Queries []string `json:"queries,omitempty"`
	// Unseen says what could not be read and why.
	Unseen []string `json:"unseen,omitempty"`
}

// InstanceHistory is one member's metrics over the range: the worst value
// of each quantile series (histogram_quantile over rate(..._bucket[w]) at
// each step) and the increase of each counter over the whole range.
type InstanceHistory struct {
	Instance string `json:"instance"`
	Version  string `json:"version,omitempty"`

	WALFsyncP99Max      float64 `json:"wal_fsync_p99_max_seconds,omitempty"`
	BackendCommitP99Max float64 `json:"backend_commit_p99_max_seconds,omitempty"`
	PeerRTTP99Max       float64 `json:"peer_rtt_p99_max_seconds,omitempty"`
	CPUCoresMax         float64 `json:"cpu_cores_max,omitempty"`
	DBSizeMax           float64 `json:"db_size_max_bytes,omitempty"`
	QuotaBytes          float64 `json:"quota_bytes,omitempty"`

	LeaderChanges     float64 `json:"leader_changes"`
	SlowApplies       float64 `json:"slow_applies"`
	HeartbeatFailures float64 `json:"heartbeat_send_failures"`
	ProposalsFailed   float64 `json:"proposals_failed"`
	// WorstAtUnix is when the WAL fsync p99 was at its worst.
	WorstAtUnix float64 `json:"wal_fsync_worst_at_unix,omitempty"`
}

// DoctorMember is one member as doctor found it.
type DoctorMember struct {
	Name     string `json:"name"`
	ID       string `json:"id,omitempty"`
	Endpoint string `json:"endpoint"`
	// MetricsURL is where its metrics were read.
	MetricsURL string `json:"metrics_url,omitempty"`
	Version    string `json:"version,omitempty"`
	IsLeader   bool   `json:"is_leader,omitempty"`
	IsLearner  bool   `json:"is_learner,omitempty"`
	// Reachable is false when its endpoint did not answer; Error says why.
	Reachable bool   `json:"reachable"`
	Error     string `json:"error,omitempty"`
	// Unresponsive says the member accepted the TCP connection but did
	// not answer its Status within the deadline: a process that is not
	// running when asked, not a member that is down.
	Unresponsive bool `json:"unresponsive,omitempty"`
	// ClusterID and the leader it reports.
	ClusterID string `json:"cluster_id,omitempty"`
	LeaderID  string `json:"leader_id,omitempty"`
	// RaftIndex and RaftAppliedIndex from its status; RaftTerm.
	RaftIndex        uint64 `json:"raft_index,omitempty"`
	RaftAppliedIndex uint64 `json:"raft_applied_index,omitempty"`
	RaftTerm         uint64 `json:"raft_term,omitempty"`
	// DBSize is the database file's size and DBInUse the part in use
	// (bytes); QuotaBytes the member's backend quota (0: not known).
	DBSize     int64   `json:"db_size_bytes,omitempty"`
	DBInUse    int64   `json:"db_in_use_bytes,omitempty"`
	QuotaBytes float64 `json:"quota_bytes,omitempty"`
	// AnsweredAtEnd, RaftIndexAtEnd and AppliedAtEnd are a second
	// Status at the end of the window: whether the member answered it
	// and its indexes then (a member catching up shrinks its distance to
	// the leader's).
	AnsweredAtEnd  bool   `json:"answered_at_end,omitempty"`
	RaftIndexAtEnd uint64 `json:"raft_index_at_end,omitempty"`
	AppliedAtEnd   uint64 `json:"raft_applied_index_at_end,omitempty"`
	// UptimeSeconds is how long the member process had run at the end
	// of the window (process_start_time_seconds of the last scrape, read
	// even when the first failed); 0: not known.
	UptimeSeconds float64 `json:"uptime_seconds,omitempty"`
	// Alarms raised on this member (NOSPACE, CORRUPT).
	Alarms []string `json:"alarms,omitempty"`
	// ConnectSeconds is the median TCP connect time from here to its
	// client endpoint over the window; ReadSerial and ReadLinear are its
	// serializable and linearizable read latencies over the window.
	ConnectSeconds float64     `json:"connect_seconds,omitempty"`
	ReadSerial     *ReadFigure `json:"read_serializable,omitempty"`
	ReadLinear     *ReadFigure `json:"read_linearizable,omitempty"`
	// Metrics are its metrics over the window; nil when not scraped
	// (MetricsError says why).
	Metrics      *DoctorMetrics `json:"metrics,omitempty"`
	MetricsError string         `json:"metrics_error,omitempty"`
}

// ReadFigure summarises one kind of read probe.
type ReadFigure struct {
	Samples int `json:"samples"`
	Errors  int `json:"errors,omitempty"`
	// Stalled counts the reads that took StallSeconds or more.
	Stalled int     `json:"stalled,omitempty"`
	P50     float64 `json:"p50_seconds"`
	Max     float64 `json:"max_seconds"`
}

// StallSeconds is how long a read must take to count as stalled: a local
// read needs neither disk nor peers and takes about a millisecond.
const StallSeconds = 0.050

// DoctorMetrics are one member's metrics over the window (between two
// scrapes): quantiles from bucket deltas, counter increases, gauges at the
// end. Quantiles of histograms that saw nothing in the window are from
// the counts since the member started, and say so (…SinceStart).
type DoctorMetrics struct {
	CPUCores   float64 `json:"cpu_cores"`
	RSSBytes   float64 `json:"rss_bytes,omitempty"`
	Goroutines float64 `json:"goroutines,omitempty"`

	WALFsyncP50        float64 `json:"wal_fsync_p50_seconds,omitempty"`
	WALFsyncP99        float64 `json:"wal_fsync_p99_seconds,omitempty"`
	WALFsyncP999       float64 `json:"wal_fsync_p999_seconds,omitempty"`
	WALFsyncs          float64 `json:"wal_fsyncs"`
	WALFsyncSinceStart bool    `json:"wal_fsync_since_start,omitempty"`
	// WALFsyncMedianFloor is a lower bound of the median WAL fsync: the
	// lower edge of the bucket that holds the middle observation of
	// WALFsyncMedianN (over the window when it has enough, else since the
	// member started: WALFsyncMedianSinceStart). A median needs far fewer
	// observations than a p99, and the p99 is at least the median: a
	// quiet member's slow disk shows here when its p99 cannot be judged.
	WALFsyncMedianFloor      float64 `json:"wal_fsync_median_floor_seconds,omitempty"`
	WALFsyncMedianN          float64 `json:"wal_fsync_median_observations,omitempty"`
	WALFsyncMedianSinceStart bool    `json:"wal_fsync_median_since_start,omitempty"`
	CommitP99                float64 `json:"backend_commit_p99_seconds,omitempty"`
	CommitSinceStart         bool    `json:"backend_commit_since_start,omitempty"`
	PeerRTTP99               float64 `json:"peer_rtt_p99_seconds,omitempty"`
	PeerRTTSinceStart        bool    `json:"peer_rtt_since_start,omitempty"`

	SlowApplies       float64 `json:"slow_applies"`
	SlowReadIndexes   float64 `json:"slow_read_indexes"`
	HeartbeatFailures float64 `json:"heartbeat_send_failures"`
	PeerSendFailures  float64 `json:"peer_send_failures"`
	LeaderChanges     float64 `json:"leader_changes"`
	ProposalsFailed   float64 `json:"proposals_failed"`
	ProposalsPending  float64 `json:"proposals_pending"`
	GRPCRequests      float64 `json:"grpc_requests"`
	GRPCErrors        float64 `json:"grpc_errors"`
	HasLeader         bool    `json:"has_leader"`
	// ClientSentBytes are the bytes of gRPC messages the member sent its
	// clients over the window (etcd_network_client_grpc_sent_bytes_total),
	// and Ranges the unary Range requests it answered
	// (grpc_server_handled_total): together, how large its answers are.
	ClientSentBytes float64 `json:"client_sent_bytes,omitempty"`
	Ranges          float64 `json:"ranges,omitempty"`
	// Defragmenting says the member was defragmenting its backend when
	// the window began or ended (etcd_disk_defrag_inflight, etcd 3.5 and
	// newer; false where the metric is missing).
	Defragmenting bool `json:"defragmenting,omitempty"`
	// Maintenance seen in the window. CompactionBatches are the batches a
	// physical compaction committed (the count of
	// etcd_debugging_mvcc_db_compaction_pause_duration_milliseconds) and
	// CompactionPauseSeconds the time they held the backend's write lock
	// (its sum); CompactionsFinished the compactions that ended (the
	// count of ..._db_compaction_total_duration_milliseconds) and
	// CompactionSeconds how long they ran together (its sum);
	// CompactionKeys the keys they removed. CompactRevisionBefore and
	// CompactRevisionAfter are etcd_debugging_mvcc_compact_revision at
	// both ends (the last compaction scheduled). Compacting says a
	// compaction was still running when the window ended: batches or a
	// new compact revision in the window and none ended.
	CompactionBatches      float64 `json:"compaction_batches,omitempty"`
	CompactionPauseSeconds float64 `json:"compaction_pause_seconds,omitempty"`
	CompactionsFinished    float64 `json:"compactions_finished,omitempty"`
	CompactionSeconds      float64 `json:"compaction_seconds,omitempty"`
	CompactionKeys         float64 `json:"compaction_keys,omitempty"`
	CompactRevisionBefore  float64 `json:"compact_revision_before,omitempty"`
	CompactRevisionAfter   float64 `json:"compact_revision_after,omitempty"`
	Compacting             bool    `json:"compacting,omitempty"`
	// SnapshotSendTo are the peers (member IDs in hex, as etcd labels
	// them) this member was sending a database snapshot to at either end
	// of the window (etcd_network_snapshot_send_inflights_total) or sent
	// one in it (etcd_network_snapshot_send_success): a leader sends one
	// to a member its log no longer reaches.
	SnapshotSendTo []string `json:"snapshot_send_to,omitempty"`
	// SnapshotReceiving says the member was receiving a snapshot at
	// either end or received one in the window
	// (etcd_network_snapshot_receive_inflights_total, _success);
	// SnapshotApplying that it was applying one at either end
	// (etcd_server_snapshot_apply_in_progress_total).
	SnapshotReceiving bool `json:"snapshot_receiving,omitempty"`
	SnapshotApplying  bool `json:"snapshot_applying,omitempty"`
	// Defrags and DefragSeconds are the defragmentations the member ran
	// since it started and how long they took together
	// (etcd_disk_backend_defrag_duration_seconds count and sum): its own
	// rate for the next one.
	Defrags       float64 `json:"defrags,omitempty"`
	DefragSeconds float64 `json:"defrag_seconds,omitempty"`
	// GRPCUnaryP99 is the p99 handling time of each unary gRPC method with
	// calls in the window (grpc_server_handling_seconds, exported with
	// --metrics=extensive only; nil without).
	GRPCUnaryP99 map[string]float64 `json:"grpc_unary_p99_seconds,omitempty"`
}

// DoctorStep is one step of the diagnosis.
type DoctorStep struct {
	// Name is the step: "membership", "reads", "cpu-memory", "network",
	// "disk", "complaints", "logs", "history", "keyspace".
	Name string `json:"name"`
	// Checks are its measurements against their thresholds.
	Checks []Verdict `json:"checks"`
	// Unseen says what the step could not see and why ("m2's metrics:
	// connection refused").
	Unseen []string `json:"unseen,omitempty"`
}

// Finding is one conclusion of the diagnosis.
type Finding struct {
	// Rank is 1 for the finding that best explains the symptom.
	Rank int `json:"rank"`
	// Status is FAIL or WARN.
	Status string `json:"status"`
	// Cause is what is wrong: disk, network, cpu, memory, quota,
	// fragmentation, leader, membership, requests.
	Cause string `json:"cause"`
	// Member names the member when the cause is one member's; empty when
	// it is the cluster's.
	Member string `json:"member,omitempty"`
	// Summary is the finding in one sentence with its figures.
	Summary string `json:"summary"`
	// Evidence are the measurements behind it, each with its threshold.
	Evidence []string `json:"evidence"`
	// Fix is what to do.
	Fix string `json:"fix"`
	// Source is where the threshold and the advice come from.
	Source string `json:"source"`
	// Score orders findings: how far past their thresholds the evidence
	// is, and how directly it explains slowness.
	Score float64 `json:"score"`
	// Versions are the etcd versions whose metrics or logs it relied on.
	Versions []string `json:"versions,omitempty"`
}

// LogCensus counts the known etcd log messages in the members' logs.
type LogCensus struct {
	// Sources are the files read ("-" for standard input).
	Sources []string `json:"sources"`
	// Formats are the log formats recognised: "json" (zap, etcd 3.4
	// and later), "text" (capnslog, etcd 3.4 without --logger=zap),
	// "journald-json", "journald-short".
	Formats []string `json:"formats,omitempty"`
	// Lines is how many lines were read; Unrecognised how many of them
	// were in no known format.
	Lines        int `json:"lines"`
	Unrecognised int `json:"unrecognised"`
	// Messages are the known messages found, per member.
	Messages []LogMessage `json:"messages"`
	// FirstUnix and LastUnix bound the timestamps seen (Unix seconds).
	FirstUnix float64 `json:"first_unix,omitempty"`
	LastUnix  float64 `json:"last_unix,omitempty"`
}

// LogMessage is one known message's occurrences in one member's log.
type LogMessage struct {
	Member string `json:"member"`
	// Key names the message ("slow-fdatasync", "apply-took-too-long").
	Key string `json:"key"`
	// Text is the message as etcd logs it.
	Text string `json:"text"`
	// Cause is what the message points to: disk, network, cpu, leader,
	// quota, clock.
	Cause string `json:"cause"`
	Count int    `json:"count"`
	// PerMinute counts by minute (Unix seconds of the minute's start).
	PerMinute []MinuteCount `json:"per_minute,omitempty"`
	// Took summarises the durations the messages report ("took"), in
	// seconds; nil when they report none.
	Took *TookSummary `json:"took,omitempty"`
}

// MinuteCount is a count within one minute.
type MinuteCount struct {
	Unix  int64 `json:"unix"`
	Count int   `json:"count"`
}

// TookSummary is min, median and max of reported durations (seconds).
type TookSummary struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// KeyspaceCensus is how the keys fill the database: per top-level prefix
// and, for Kubernetes, per /registry/<resource>.
type KeyspaceCensus struct {
	// Revision is the revision every page was read at.
	Revision int64 `json:"revision"`
	// Keys and Bytes (keys and values) in total.
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes"`
	// Prefixes are the groups, the largest in bytes first.
	Prefixes []PrefixUsage `json:"prefixes"`
}

// PrefixUsage is one group of keys.
type PrefixUsage struct {
	Prefix string `json:"prefix"`
	Keys   int64  `json:"keys"`
	Bytes  int64  `json:"bytes"`
}
