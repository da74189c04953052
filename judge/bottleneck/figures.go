package bottleneck

// The names of a statement's figures (result.Bottleneck.Figures) that are
// not a cell's metrics: what the rules worked out (a limit, a budget, the
// round trip they judged by) or took from elsewhere (the disk job, a
// higher load's cell). A cell's own figures go by their
// result.MetricName (result/metrics.go).
const (
	figLatencyP50           = "latency_p50_seconds"
	figLatencyP99           = "latency_p99_seconds"
	figClients              = "clients"
	figUnavailable          = "unavailable_seconds"
	figOfferedRate          = "offered_rps"
	figHigherLoadThroughput = "higher_load_throughput_rps"
	figRateLimitFloor       = "rate_limit_floor_seconds"
	figComponentQPS         = "component_qps"
	figMemberCPUBudget      = "member_cpu_budget"
	figCores                = "cores"
	figCoresPerMember       = "cores_per_member"
	figLoadCPUBudget        = "load_cpu_budget"
	figDiskJobIOPS          = "disk_fsync_iops"
	figDiskJobP99           = "disk_fsync_p99_seconds"
	figRTT                  = "rtt_seconds"
	// A check cell's scrapes (result.CheckLevel), its last level's: the
	// worst member's p99s and the members' CPU summed.
	figCheckWALFsyncP99Worst = "check_wal_fsync_p99_worst_member_seconds"
	figCheckCommitP99Worst   = "check_backend_commit_p99_worst_member_seconds"
	figCheckMembersCPU       = "check_members_cpu_cores"
)
