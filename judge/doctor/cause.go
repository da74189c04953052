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
)

// Causes lists every cause, in the order above: the order messages list
// them in (an incident's expectation, docs/doctor.md).
func Causes() []Cause {
	return []Cause{CauseMembership, CauseLeader, CauseQuota, CauseFragmentation, CauseCPU, CauseNetwork, CauseDisk, CauseRequests, CauseClock, CauseDefrag}
}
