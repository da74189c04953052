package result

// Server is what the members said about themselves while a run lasted:
// each member's /metrics scraped every IntervalSeconds, turned into
// per-interval figures (histogram quantiles from bucket deltas, rates from
// counter increases) and summaries over the run. Members etcdlab started
// add what their processes did (disk and network I/O from /proc).
type Server struct {
	IntervalSeconds float64 `json:"interval_seconds"`
	// EtcdVersion is the members' version the metric names were read as
	// (etcd_server_version or the status API); names differ from 3.4 to 3.6.
	EtcdVersion string         `json:"etcd_version,omitempty"`
	Members     []MemberSeries `json:"members"`
	// Downsampled says the points were merged pairwise (as often as
	// needed) to keep at most MaxServerPoints per member.
	Downsampled bool `json:"downsampled,omitempty"`
}

// LowestDiskBucket is the upper bound, in seconds, of the lowest bucket of
// etcd's WAL fsync and backend commit duration histograms (1 ms in 3.4 to
// 3.6). A quantile that falls in that bucket is recorded as the bound
// itself: it means "at most 1 ms", and renders as "≤ 1.00 ms".
const LowestDiskBucket = 0.001

// LowestPeerRTTBucket is the same for etcd's peer round-trip histogram
// (0.1 ms in 3.4 to 3.6).
const LowestPeerRTTBucket = 0.0001

// MaxServerPoints bounds the points kept per member in a run.
const MaxServerPoints = 1800

// MemberSeries is one member's figures over a run.
type MemberSeries struct {
	Name       string        `json:"name"`
	MetricsURL string        `json:"metrics_url"`
	Summary    ServerSummary `json:"summary"`
	Points     []ServerPoint `json:"points,omitempty"`
	// Errors counts scrapes that failed (the member down, a timeout); the
	// first is kept.
	ScrapeErrors int64  `json:"scrape_errors,omitempty"`
	FirstError   string `json:"first_error,omitempty"`
}

// ServerSummary is one member over the whole run. Quantiles are in seconds
// (from the bucket deltas between the first and last scrape; 0: nothing
// observed; the lowest bucket's bound when they fell in it, see
// LowestDiskBucket); rates are per second; bytes and counts are increases over
// the run unless named as a gauge.
type ServerSummary struct {
	WALFsyncP50 float64 `json:"wal_fsync_p50_seconds,omitempty"`
	WALFsyncP99 float64 `json:"wal_fsync_p99_seconds,omitempty"`
	WALFsyncs   float64 `json:"wal_fsyncs,omitempty"`
	// WALFsyncSeconds is the WAL fsyncs' time together (the histogram's
	// _sum): the share of the run the WAL spent in fsync, exactly.
	WALFsyncSeconds  float64 `json:"wal_fsync_seconds,omitempty"`
	BackendCommitP99 float64 `json:"backend_commit_p99_seconds,omitempty"`
	PeerRTTP99       float64 `json:"peer_rtt_p99_seconds,omitempty"`
	// PeerRTTLowestBucket and PeerRTTHighestBucket are the upper bounds
	// (le) of the lowest and highest buckets of etcd's peer round-trip
	// histogram that gained an observation in the run, over the member's
	// peers: the range a Grafana heatmap of the histogram shows, in its
	// bucket labels (an observation above the top finite bound, 3.28 s,
	// counts as that bound). 0: nothing observed.
	PeerRTTLowestBucket  float64 `json:"peer_rtt_lowest_bucket_seconds,omitempty"`
	PeerRTTHighestBucket float64 `json:"peer_rtt_highest_bucket_seconds,omitempty"`
	LeaderChanges        float64 `json:"leader_changes,omitempty"`
	SecondsWithoutLead   float64 `json:"seconds_without_leader,omitempty"`
	SlowApplies          float64 `json:"slow_applies,omitempty"`
	SlowReadIndexes      float64 `json:"slow_read_indexes,omitempty"`
	ProposalsFailed      float64 `json:"proposals_failed,omitempty"`
	ProposalsPendingMx   float64 `json:"proposals_pending_max,omitempty"`
	GRPCRequests         float64 `json:"grpc_requests,omitempty"`
	GRPCErrors           float64 `json:"grpc_errors,omitempty"`
	// GRPCErrorsByCode splits GRPCErrors by gRPC code ("Unavailable").
	GRPCErrorsByCode map[string]float64 `json:"grpc_errors_by_code,omitempty"`
	// GRPCByMethod splits GRPCRequests by method ("Range", "Txn",
	// "LeaseGrant"): what the member served, whoever sent it (bench kube
	// against a real control plane compares them with the emulator's).
	GRPCByMethod map[string]float64 `json:"grpc_by_method,omitempty"`
	// WatchEventsSent is the events the member sent to its watchers
	// (etcd_debugging_mvcc_events_total): what every watch of the run
	// received from it, whoever watched.
	WatchEventsSent float64 `json:"watch_events_sent,omitempty"`
	DBSizeBytes     float64 `json:"db_size_bytes,omitempty"` // gauge, at the end
	DBInUseBytes    float64 `json:"db_in_use_bytes,omitempty"`
	CPUCoresMean    float64 `json:"cpu_cores_mean,omitempty"`
	CPUCoresMax     float64 `json:"cpu_cores_max,omitempty"` // highest interval
	RSSMaxBytes     float64 `json:"rss_max_bytes,omitempty"`
	DiskReadBytes   float64 `json:"disk_read_bytes,omitempty"` // /proc/PID/io, members etcdlab started
	DiskWriteBytes  float64 `json:"disk_write_bytes,omitempty"`
	DiskReadOps     float64 `json:"disk_read_ops,omitempty"`
	DiskWriteOps    float64 `json:"disk_write_ops,omitempty"`
	NetReceiveBytes float64 `json:"net_receive_bytes,omitempty"` // etcd's own counters, peers and clients
	NetSendBytes    float64 `json:"net_send_bytes,omitempty"`
}

// ServerPoint is one member over one scrape interval, ending at
// UnixMillis. A field is 0 when the interval observed nothing of it.
type ServerPoint struct {
	UnixMillis         int64   `json:"t"`
	WALFsyncP50        float64 `json:"wal_fsync_p50,omitempty"`
	WALFsyncP99        float64 `json:"wal_fsync_p99,omitempty"`
	BackendCommitP99   float64 `json:"backend_commit_p99,omitempty"`
	PeerRTTP99         float64 `json:"peer_rtt_p99,omitempty"`
	HasLeader          bool    `json:"has_leader"`
	IsLeader           bool    `json:"is_leader,omitempty"`
	LeaderChanges      float64 `json:"leader_changes,omitempty"` // in the interval
	SlowApplies        float64 `json:"slow_applies,omitempty"`
	ProposalsPending   float64 `json:"proposals_pending,omitempty"`
	ProposalsFailed    float64 `json:"proposals_failed,omitempty"`
	GRPCPerSecond      float64 `json:"grpc_per_second,omitempty"`
	GRPCErrorsPerSec   float64 `json:"grpc_errors_per_second,omitempty"`
	DBSizeBytes        float64 `json:"db_size,omitempty"`
	DBInUseBytes       float64 `json:"db_in_use,omitempty"`
	CPUCores           float64 `json:"cpu_cores,omitempty"`
	RSSBytes           float64 `json:"rss,omitempty"`
	DiskReadBytesPerS  float64 `json:"disk_read_bps,omitempty"`
	DiskWriteBytesPerS float64 `json:"disk_write_bps,omitempty"`
	DiskWriteOpsPerS   float64 `json:"disk_write_iops,omitempty"`
	NetReceivePerS     float64 `json:"net_rx_bps,omitempty"`
	NetSendPerS        float64 `json:"net_tx_bps,omitempty"`
}
