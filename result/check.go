package result

// KindCheck is the kind of `etcdlab check` documents.
const KindCheck = "check"

// Check is what `etcdlab check` found besides its verdicts. The disk probe
// is in Document.Disk and the load levels in Document.Runs.
type Check struct {
	// Mode is "local" (this machine: disk probe and a local cluster) or
	// "live" (a cluster given by --endpoints).
	Mode    string        `json:"mode"`
	Levels  []CheckLevel  `json:"levels"`
	Highest string        `json:"highest_level_passed"` // "" when none passed
	Floor   *Floor        `json:"floor,omitempty"`
	Members []MemberCheck `json:"members"`
	Connect []Connect     `json:"connect"`
	// Partial lists what could not be measured, and why.
	Partial []string `json:"partial,omitempty"`
}

// CheckLevel is one load level of etcdctl check perf.
type CheckLevel struct {
	Name    string  `json:"name"`
	Rate    float64 `json:"target_writes_per_second"`
	Clients int     `json:"clients"`
	Passed  bool    `json:"passed"`
	// Why lists the check perf criteria the level missed.
	Why []string `json:"why,omitempty"`
	// WalFsyncP99 and BackendCommitP99 are the worst member's p99 during
	// the level (0: none observed).
	WalFsyncP99      float64 `json:"wal_fsync_p99_seconds,omitempty"`
	BackendCommitP99 float64 `json:"backend_commit_p99_seconds,omitempty"`
	// MembersCPUCores is the members' CPU during the level (their
	// process_cpu_seconds_total), LoadCPUCores etcdlab's own, and
	// OtherCPUCores what the rest of the machine used meanwhile: the
	// machine's busy time (/proc/stat) less both (0 when not measured).
	MembersCPUCores float64 `json:"members_cpu_cores,omitempty"`
	LoadCPUCores    float64 `json:"load_cpu_cores,omitempty"`
	OtherCPUCores   float64 `json:"other_cpu_cores,omitempty"`
}

// Floor is a lower bound of the 1-client put latency p50 (the terms a put
// cannot avoid: the leader's WAL fsync of its entry, and a round trip)
// against the p50 the 1-client probe achieved. Each term names its source
// and is a lower bound or 0, except that the local cluster's fsync term is
// the disk probe's p50, an estimate of the same operation (measure/check's
// floor gives the argument for each). A floor above the probe's p50 is a
// wrong estimate, never a result: Wrong then says which term exceeded what
// the probe achieved.
type Floor struct {
	FsyncSeconds float64 `json:"fsync_seconds"`
	FsyncFrom    string  `json:"fsync_from"`
	RTTSeconds   float64 `json:"rtt_seconds"`
	RTTFrom      string  `json:"rtt_from"`
	FloorSeconds float64 `json:"floor_seconds"`
	ProbeP50     float64 `json:"probe_p50_seconds"`
	// RatioToFloor is ProbeP50 / FloorSeconds; 0 when the floor is 0 (no
	// term above 0 could be established).
	RatioToFloor float64 `json:"ratio_to_floor"`
	// Wrong is set when the probe's p50 came out below the floor: the
	// floor estimate is wrong, which term exceeded the p50, and why that
	// source failed to bound it.
	Wrong string `json:"wrong,omitempty"`
	// PeerRTTP50 is etcd's own peer round trip p50 over the check, shown
	// for information and never part of the floor (PeerRTTFrom says why);
	// 0 when etcd observed none.
	PeerRTTP50  float64 `json:"peer_rtt_p50_seconds,omitempty"`
	PeerRTTFrom string  `json:"peer_rtt_from,omitempty"`
}

// MemberCheck is one member's server metrics over the whole check.
type MemberCheck struct {
	Name              string  `json:"name"`
	MetricsURL        string  `json:"metrics_url"`
	WalFsyncP99       float64 `json:"wal_fsync_p99_seconds"`
	BackendCommitP99  float64 `json:"backend_commit_p99_seconds"`
	PeerRTTP99        float64 `json:"peer_rtt_p99_seconds"`
	PeerRTTSamples    float64 `json:"peer_rtt_samples"`
	SlowApplies       float64 `json:"slow_applies"`
	LeaderChanges     float64 `json:"leader_changes"`
	ProposalsFailed   float64 `json:"proposals_failed"`
	HeartbeatFailures float64 `json:"heartbeat_send_failures"`
	CPUCores          float64 `json:"cpu_cores"`
	RSSBytes          float64 `json:"rss_bytes"`
	Error             string  `json:"error,omitempty"`
}

// Connect is the TCP connect time from here to one member.
type Connect struct {
	Endpoint string  `json:"endpoint"`
	Seconds  float64 `json:"seconds"`
	Error    string  `json:"error,omitempty"`
}
