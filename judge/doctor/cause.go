package doctor

// Cause is what a doctor's finding says is wrong (result.Finding.Cause).
// Go code names causes only through the constants below, so a misspelt
// one does not compile; observe/logscan's messages carry the same words.
type Cause string

// Causes of the doctor's findings.
const (
	CauseMembership    Cause = "membership"
	CauseLeader        Cause = "leader"
	CauseQuota         Cause = "quota"
	CauseFragmentation Cause = "fragmentation"
	CauseCPU           Cause = "cpu"
	CauseNetwork       Cause = "network"
	CauseDisk          Cause = "disk"
	CauseRequests      Cause = "requests"
	CauseClock         Cause = "clock"
	// CauseDefrag is a defragmentation in progress: it blocks the
	// member's reads and writes while it rewrites the database.
	CauseDefrag Cause = "defrag"
	// CauseCompaction is a compaction in progress: its batches hold the
	// backend's write lock, so applies and commits wait between them.
	CauseCompaction Cause = "compaction"
	// CauseCatchUp is a member coming back behind the leader: receiving
	// and applying a snapshot of the database, or replaying a long log
	// after it was down. It serves nothing, or stale data, meanwhile.
	CauseCatchUp Cause = "catch-up"
)

// Causes lists every cause, in the order above: the order messages list
// them in (an incident's expectation, docs/doctor.md).
func Causes() []Cause {
	return []Cause{CauseMembership, CauseLeader, CauseQuota, CauseFragmentation, CauseCPU, CauseNetwork, CauseDisk, CauseRequests, CauseClock, CauseDefrag, CauseCompaction, CauseCatchUp}
}
