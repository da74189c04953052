package doctor

// effect is what a symptom shows: the kind of trouble that roots of
// several causes produce. A symptom's own cause is what it would be
// alone (a read gap is the network's); its effect says which roots make
// it a consequence instead (explains), so the same cause seen two ways
// (a network finding from a read gap, or from failed peer sends) is
// explained by different roots.
type effect int

// The effects symptoms show.
const (
	// effectNone is a symptom nothing explains (a log warning of a
	// cause that no root produces): it stands or follows another.
	effectNone effect = iota
	// effectSlow: a member or the leader is slow; its applies,
	// heartbeats, read indexes and requests late.
	effectSlow
	// effectLostPeers: a member is cut off from its peers, or the
	// cluster from its leader.
	effectLostPeers
	// effectFailures: requests fail.
	effectFailures
	// effectElections: the cluster loses its leader.
	effectElections
	// effectReadGap: one member's linearizable reads wait long for the
	// leader's ReadIndex round.
	effectReadGap
	// effectReadIndex: a ReadIndex waits for the leader to confirm its
	// leadership and for the member to apply up to the index; the
	// leader's or the member's own slowness explains its wait (see
	// doctorJudge.waitRoot).
	effectReadIndex
	// effectStalled: a member's process does not answer or stalls.
	effectStalled
	// effectSlowWAL: a member's WAL fsyncs are slow.
	effectSlowWAL
	// effectSlowCommit: a member's backend commits are slow while its
	// WAL syncs within etcd's limit on the same disk: slow for what they
	// write, the disk named only when nothing else explains them.
	effectSlowCommit
	// effectDiskLog: a member logged warnings that time its disk itself
	// ("slow fdatasync"): only its own stall or defragmentation explain
	// them.
	effectDiskLog
	// effectQuotaLog: a member logged that the database is full.
	effectQuotaLog
	// effectDown: a member does not answer at its endpoint; when it
	// answers by the end of the window it was coming back.
	effectDown

	effectEnd // not an effect: one past the last
)

// explains is the doctor's causal model: explains[e] are the causes
// whose root finding explains a symptom showing e (fold makes the
// symptom that root's evidence). It is never written.
var explains = map[effect][]Cause{ //nolint:gochecknoglobals // constant table
	effectNone:       nil,
	effectSlow:       {CauseDisk, CauseCPU, CauseDefrag, CauseRequests, CauseNetwork, CauseMembership, CauseLeader, CauseCompaction, CauseCatchUp},
	effectLostPeers:  {CauseNetwork, CauseMembership, CauseCatchUp},
	effectFailures:   {CauseQuota, CauseLeader, CauseMembership, CauseNetwork, CauseDisk, CauseCPU, CauseDefrag, CauseCatchUp},
	effectElections:  {CauseDisk, CauseCPU, CauseNetwork, CauseMembership, CauseDefrag},
	effectReadGap:    {CauseDisk, CauseCPU, CauseDefrag, CauseRequests, CauseCompaction, CauseCatchUp},
	effectReadIndex:  {CauseDisk, CauseCPU, CauseCompaction, CauseCatchUp},
	effectStalled:    {CauseDefrag, CauseCatchUp},
	effectSlowWAL:    {CauseDefrag},
	effectSlowCommit: {CauseDefrag, CauseFragmentation, CauseQuota, CauseRequests, CauseCPU, CauseCompaction, CauseCatchUp},
	effectDiskLog:    {CauseCPU, CauseDefrag},
	effectQuotaLog:   {CauseQuota},
	effectDown:       {CauseCatchUp},
}
