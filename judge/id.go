package judge

// ID names one verdict: what was measured and which rule judged it. It is
// the verdict's "id" in result documents (result.Verdict.ID holds it as a
// string, so the schema does not depend on this package). Go code names
// verdicts only through the constants below, so a misspelt ID does not
// compile.
type ID string

// Verdicts judged by a Threshold in the table (see Lookup).
const (
	// DiskFsyncP99 is the p99 of fdatasync after each sequential write, as
	// fio's etcd job measures it.
	DiskFsyncP99 ID = "disk.fsync.p99"
	// DiskFsyncP999 is the p99.9 of the same job: the tail.
	DiskFsyncP999 ID = "disk.fsync.p999"
	// ServerWALFsyncP99 is the members' WAL fsync p99.
	ServerWALFsyncP99 ID = "server.wal_fsync.p99"
	// ServerBackendCommitP99 is the members' bbolt commit p99.
	ServerBackendCommitP99 ID = "server.backend_commit.p99"
	// ServerPeerRTTP99 is the members' peer round-trip p99.
	ServerPeerRTTP99 ID = "server.peer_rtt.p99"
	// NetworkConnect is the TCP connect time to the members.
	NetworkConnect ID = "network.connect"
	// ServerSlowApplies counts applies that took over 100 ms.
	ServerSlowApplies ID = "server.slow_applies"
	// ServerLeaderChanges counts leader changes.
	ServerLeaderChanges ID = "server.leader_changes"
	// ServerProposalsFailed counts failed Raft proposals.
	ServerProposalsFailed ID = "server.proposals_failed"
	// ServerHeartbeatFailures counts heartbeats the leader failed to send.
	ServerHeartbeatFailures ID = "server.heartbeat_failures"
)

// Verdicts judged by rules of their own rather than one threshold.
const (
	// DiskFsyncIOPS is sequential fdatasync IOPS against etcd's tiers
	// (IOPSTier).
	DiskFsyncIOPS ID = "disk.fsync.iops"
	// LoadCapacity is the highest etcdctl check perf load level a cluster
	// sustained (measure/check).
	LoadCapacity ID = "load.capacity"
	// ServerMetrics says whether every member's metrics could be read
	// (measure/check).
	ServerMetrics ID = "server.metrics"
)

// ownRule reports whether id is judged by a rule of its own, not by a
// Threshold in the table.
func ownRule(id ID) bool {
	switch id {
	case DiskFsyncIOPS, LoadCapacity, ServerMetrics,
		ServerDBQuota, ReadSerializable, ReadLinearizable, ProcessCPU, ServerGRPCErrors, ServerGRPCP99, ServerCompaction, ServerDefragLength:
		return true
	}
	return false
}
