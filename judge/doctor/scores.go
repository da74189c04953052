package doctor

// score names one number the doctor ranks its findings by. A finding's
// score orders the findings (the highest first, and the best-scored root
// takes a symptom): 1 is a finding at its threshold, a measured finding
// grows with how far its evidence is past its limit (the ratio of its
// figure to judge's limit, no row needed), and a finding that a count or
// a state makes (an alarm, a member that does not answer) gets its rank
// here. Every rule reads its scores from this table, as it reads its
// limits from judge/limits.go, so the ranks are set side by side: a
// raised NOSPACE alarm (10) outranks a cut-off member (7), which outranks
// disagreeing members (6) and a defragmentation (5), and the slowest
// disk's ratio competes with them from 1 up.
type score int

// The scores, in the order of the rules that read them.
const (
	// membership
	scoreUnreachable score = iota + 1
	scoreAlarm
	scoreAlarmOutage
	scoreTwoClusters
	scoreNoAgreedLeader
	scoreAppliedLag
	scoreFragmentation
	scoreQuota
	scoreQuotaSlope
	// roots
	scoreAtThreshold
	scoreCutOff
	scoreDefrag
	scoreExpensiveReads
	scoreExpensiveReadsMore
	scoreExpensiveReadsPer
	scoreUnresponsive
	scoreCompaction
	scoreCatchUp
	scoreCatchUpDown
	// reads, network, disk, complaints
	scoreStarvedSlope
	scorePeerSendFailures
	scoreSinceStart
	scoreSlowReadIndex
	scoreLeaderChanges
	scoreLeaderChangesPer
	scoreNoLeader
	// logs and history
	scoreBacked
	scoreLogLine
	scoreLogLines
	scoreExpensiveLogs
	scoreHistoryMore
	scoreHistoryPer
	scoreHistoryLeader

	scoreEnd // not a score: one past the last
)

// scoreRow is one row of the table: the number and what it means.
type scoreRow struct {
	what  string
	value float64
}

// scores is the table; it is never written.
var scores = map[score]scoreRow{ //nolint:gochecknoglobals // constant table
	scoreUnreachable:    {"a member that does not answer at its endpoint (the others may still have a quorum)", 3},
	scoreAlarm:          {"an alarm raised on a member other than NOSPACE or CORRUPT", 1.5},
	scoreAlarmOutage:    {"a NOSPACE or CORRUPT alarm: the cluster refuses writes or serves wrong data, above everything else", 10},
	scoreTwoClusters:    {"endpoints of different clusters: nothing else doctor says holds", 8},
	scoreNoAgreedLeader: {"members that do not agree on one leader: nothing commits", 6},
	scoreAppliedLag:     {"a member's applied index behind the others' (a symptom of a slow or cut-off member)", 1.2},
	scoreFragmentation:  {"a fragmented database file: wasted space, not yet a slowdown", 1.1},
	scoreQuota: {"a database at judge.LimitQuotaWarn of its quota: every write risks NOSPACE, an outage, so it " +
		"outranks the causes of slowness", 5},
	scoreQuotaSlope:         {"added per unit of the database's share of its quota past judge.LimitQuotaWarn (+3 at the fail band)", 20},
	scoreAtThreshold:        {"a finding whose figure is at its limit; it grows by the figure's ratio to the limit past it", 1},
	scoreCutOff:             {"a member cut off from its peers (no leader while the others agree on one)", 7},
	scoreDefrag:             {"a defragmentation in progress: the member answers nothing that needs its backend", 5},
	scoreExpensiveReads:     {"clients reading judge.LimitExpensiveRange per Range on average (listings without a limit)", 3},
	scoreExpensiveReadsMore: {"at most this much added for larger reads", 3},
	scoreExpensiveReadsPer:  {"one more per this many times judge.LimitExpensiveRange per Range", 8},
	scoreUnresponsive:       {"a member that takes connections but answers nothing (its process is not running)", 4},
	scoreCompaction:         {"a compaction in progress: it pauses the backend between batches, not wholly as a defragmentation does", 2.5},
	scoreCatchUp:            {"a member catching up with the leader (a snapshot, a long log): it serves stale data or nothing until it has", 4.5},
	scoreCatchUpDown:        {"added when the catching-up member answered nothing at the start of the window (above a member that does not answer, which it explains)", 1},
	scoreStarvedSlope:       {"added per unit of the share of a member's local reads that stalled (judge.LimitStarvedShare: +1.5)", 10},
	scorePeerSendFailures:   {"a member failing to send to its peers (a symptom of a down or cut-off peer)", 1.5},
	scoreSinceStart:         {"a disk figure from the member's whole life, not the window, counts this many times less", 2},
	scoreSlowReadIndex:      {"a member waiting too long for ReadIndex (a symptom of a slow leader or network)", 1.2},
	scoreLeaderChanges:      {"leader changes, before their number is added (judge.LimitLeaderChangesFail of them: 1.8)", 0.8},
	scoreLeaderChangesPer:   {"one more per this many leader changes", 4},
	scoreNoLeader:           {"members without a leader at the end of the window: nothing commits", 6},
	scoreBacked:             {"added to a finding that the members' logs or Prometheus' history back", 0.5},
	scoreLogLine:            {"added per warning a member logged, for a finding made from logs alone", 0.1},
	scoreLogLines:           {"warnings counted at most (scoreLogLine each)", 20},
	scoreExpensiveLogs:      {"slow requests that listed 10,000 keys or more, as etcd logged them: a measurement, below the metrics' expensive reads", 2},
	scoreHistoryMore:        {"at most this much added to a history finding past its limit", 2},
	scoreHistoryPer:         {"one more per this many times its limit, for a history finding (past, not present)", 5},
	scoreHistoryLeader:      {"leader changes Prometheus recorded in the range (past, not present)", 1.2},
}

// v is the score's number.
func (s score) v() float64 { return scores[s].value }
