package metrics

// Name is the name of a Prometheus metric family, as etcd exposes it.
type Name string

// The metrics etcdlab reads. etcd 3.4, 3.5 and 3.6 expose every one of them
// under the same name (etcd_server_slow_apply_total and
// etcd_server_is_leader are the youngest, from 3.4), so no version needs a
// name of its own. Histograms are in seconds.
const (
	// HasLeader is 1 while the member knows a leader; that a scrape has it
	// tells an etcd member from another Prometheus exporter.
	HasLeader Name = "etcd_server_has_leader"
	// IsLeader is 1 while the member is the leader (etcd 3.4 and later).
	IsLeader Name = "etcd_server_is_leader"
	// WALFsyncDuration is the histogram of WAL fsync latency.
	WALFsyncDuration Name = "etcd_disk_wal_fsync_duration_seconds"
	// BackendCommitDuration is the histogram of bbolt commit latency.
	BackendCommitDuration Name = "etcd_disk_backend_commit_duration_seconds"
	// PeerRoundTripTime is the histogram of round trips to each peer,
	// observed about every 30 s.
	PeerRoundTripTime Name = "etcd_network_peer_round_trip_time_seconds"
	// SlowApplies counts applies that took over 100 ms.
	SlowApplies Name = "etcd_server_slow_apply_total"
	// LeaderChanges counts the leader changes the member saw.
	LeaderChanges Name = "etcd_server_leader_changes_seen_total"
	// ProposalsFailed counts failed Raft proposals.
	ProposalsFailed Name = "etcd_server_proposals_failed_total"
	// HeartbeatSendFailures counts heartbeats the leader failed to send.
	HeartbeatSendFailures Name = "etcd_server_heartbeat_send_failures_total"
	// ProcessCPUSeconds is the member process's CPU time (Go's process
	// collector).
	ProcessCPUSeconds Name = "process_cpu_seconds_total"
	// ProcessResidentMemory is the member process's resident set size.
	ProcessResidentMemory Name = "process_resident_memory_bytes"
)
