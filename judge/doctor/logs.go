package doctor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// logsSource is where the log lines and their causes come from.
const logsSource = "etcd FAQ and server source (the messages' causes); etcd-ocp-diag, etcd-tools must-gather-analyzer (counting them)"

// logs is step 7: the known messages in the members' logs, per member and
// cause. They back the findings of the same cause and member (a metric's
// finding gains the log's counts as evidence and some weight), or, where
// the window saw nothing, become findings of their own: the logs cover the
// incident, the window only the present.
func (j *doctorJudge) logs() result.DoctorStep {
	st := result.DoctorStep{Name: "logs"}
	c := j.d.Logs
	if c == nil {
		return st
	}
	if c.Lines == 0 {
		st.Unseen = append(st.Unseen, "the logs given have no lines")
		return st
	}
	if c.Unrecognised == c.Lines {
		st.Unseen = append(st.Unseen, fmt.Sprintf("logs in an unknown format: none of %d lines is etcd's (zap JSON or console, capnslog text, journald)", c.Lines))
		return st
	}
	type key struct {
		member string
		cause  Cause
	}
	byCause := map[key][]result.LogMessage{}
	var expensive []result.LogMessage
	for _, m := range c.Messages {
		v := result.Verdict{ID: string(judge.LogsID(m.Key)), What: fmt.Sprintf("%s: %q in its log", m.Member, m.Text), Value: float64(m.Count), Unit: "count",
			Display: fmt.Sprintf("%d", m.Count), Threshold: "none wanted", Source: logsSource, Status: result.Warn}
		if Cause(m.Cause) == CauseLeader && m.Key == "elected-leader" {
			v.Status, v.Threshold = result.Pass, "informational"
		}
		if maintenance(Cause(m.Cause)) {
			// An operator's routine: evidence of a defragmentation,
			// compaction or catch-up the metrics saw in progress,
			// informational otherwise (the leader logs the snapshot it
			// sent a member catching up: that member's finding).
			v.Status, v.Threshold = result.Pass, "informational"
			if f := j.maintenanceFinding(Cause(m.Cause), m.Member); f != nil {
				e := fmt.Sprintf("%q %d times in %s's log", m.Text, m.Count, m.Member)
				if m.Took != nil {
					e += fmt.Sprintf(", each taking %s to %s", units.Seconds(m.Took.Min), units.Seconds(m.Took.Max))
				}
				f.Evidence = append(f.Evidence, e)
			}
		}
		if m.Took != nil {
			v.Display += fmt.Sprintf(" (took %s / %s / %s min/median/max)", units.Seconds(m.Took.Min), units.Seconds(m.Took.Median), units.Seconds(m.Took.Max))
		}
		st.Checks = append(st.Checks, v)
		if m.Key == expensiveRead {
			expensive = append(expensive, m)
			continue
		}
		if v.Status == result.Warn && j.foldLog(m) {
			continue
		}
		if v.Status == result.Warn {
			k := key{m.Member, Cause(m.Cause)}
			byCause[k] = append(byCause[k], m)
		}
	}
	j.expensiveLogs(expensive)
	keys := make([]key, 0, len(byCause))
	for k := range byCause {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].member != keys[b].member {
			return keys[a].member < keys[b].member
		}
		return keys[a].cause < keys[b].cause
	})
	for _, k := range keys {
		ms := byCause[k]
		n, ev := logEvidence(ms)
		if f := j.findingOf(k.cause, k.member); f != nil {
			f.Evidence = append(f.Evidence, ev...)
			f.Score += scoreBacked.v()
			continue
		}
		j.symptom(result.Finding{Status: result.Warn, Cause: string(k.cause), Member: k.member, Score: scoreAtThreshold.v() + scoreLogLine.v()*min(float64(n), scoreLogLines.v()),
			Summary:  fmt.Sprintf("%s's log points to the %s: %d warnings (%s)", k.member, k.cause, n, strings.Join(messageKeys(ms), ", ")),
			Evidence: ev, Fix: logFix(k.cause), Source: logsSource}, logConsequence(k.member, k.cause, ms))
	}
	return st
}

// maintenance reports whether cause is maintenance in progress, whose
// log lines (one ended) are informational.
func maintenance(cause Cause) bool {
	return cause == CauseDefrag || cause == CauseCompaction || cause == CauseCatchUp
}

// maintenanceFinding is the finding of cause on member or the
// cluster's, else (a compaction is every member's, the leader logs the
// catch-up it serves) the first finding of that cause.
func (j *doctorJudge) maintenanceFinding(cause Cause, member string) *result.Finding {
	if f := j.findingOf(cause, member); f != nil || cause == CauseDefrag {
		return f
	}
	for i := range j.findings {
		if Cause(j.findings[i].Cause) == cause {
			return &j.findings[i]
		}
	}
	return nil
}

// symptoms are the log messages a slow or stalled leader (or a member's
// own stall) makes on any member: late applies and read indexes, an
// overloaded server, late heartbeats. "slow fdatasync" is not among them:
// it times the disk itself, and only the member's own stall explains it.
var symptoms = map[string]bool{"apply-took-too-long": true, "readindex-slow": true, "server-overloaded": true, "heartbeat-late": true} //nolint:gochecknoglobals // constant set

// foldLog adds log message m to the root finding that explains it (the
// leader's or its member's own disk or CPU finding, a different cause
// from the message's or on another member) as evidence, and reports
// whether it did: such a message is a consequence, not a finding.
func (j *doctorJudge) foldLog(m result.LogMessage) bool {
	root := j.waitRoot(m.Member)
	if root == nil || (Cause(root.Cause) == Cause(m.Cause) && root.Member == m.Member) {
		return false // its own finding takes it as evidence below
	}
	if !symptoms[m.Key] && root.Member != m.Member {
		return false
	}
	root.Evidence = append(root.Evidence, fmt.Sprintf("%q %d times in %s's log: a consequence of %s, not a %s finding of its own", m.Text, m.Count, m.Member, rootName(*root), m.Cause))
	return true
}

// findingOf is the finding of cause on member (or the cluster's), if any.
func (j *doctorJudge) findingOf(cause Cause, member string) *result.Finding {
	for i := range j.findings {
		f := &j.findings[i]
		if Cause(f.Cause) == cause && (f.Member == member || f.Member == "") {
			return f
		}
	}
	return nil
}

func messageKeys(ms []result.LogMessage) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Key)
	}
	return out
}

func logFix(cause Cause) string {
	switch cause {
	case CauseDisk:
		return "check this member's WAL fsync and backend commit p99 (doctor's disk step, or --prometheus for the incident); slow disks are the first cause in etcd's FAQ, CPU starvation the second"
	case CauseNetwork:
		return "check the peer round trip and packet loss between members, and the interfaces' drop counters"
	case CauseQuota:
		return "the database reached its quota: compact, defragment, disarm the NOSPACE alarm, and find what fills the keyspace (--keyspace)"
	case CauseLeader:
		return "leader changes and timeouts follow slow disks, CPU starvation or the network: see the other findings"
	case CauseClock:
		return "synchronise the members' clocks (chrony or ntpd): leases and logs depend on them"
	}
	return "see etcd's FAQ"
}

// logConsequence is what explains a member's log warnings of cause: a
// disk warning its own stall or defragmentation (or a slow leader's, for
// the symptoms every member logs behind it); a leader or network warning
// whatever slows or cuts off members; a quota warning the quota.
func logConsequence(member string, cause Cause, ms []result.LogMessage) consequence {
	c := logCause(member, cause, ms)
	c.fromLogs = true
	return c
}

func logCause(member string, cause Cause, ms []result.LogMessage) consequence {
	switch cause {
	case CauseDisk:
		for _, m := range ms {
			if !symptoms[m.Key] {
				return consequence{member: member, effect: effectDiskLog}
			}
		}
		return consequence{member: member, effect: effectSlow}
	case CauseLeader, CauseNetwork:
		return consequence{member: member, anyMember: true, effect: effectSlow}
	case CauseQuota:
		return consequence{member: member, anyMember: true, effect: effectQuotaLog}
	}
	return consequence{member: member, effect: effectNone}
}

// expensiveRead is logscan's key for a slow request that listed 10,000
// keys or more.
const expensiveRead = "expensive-read"

// expensiveLogs makes the members' expensive reads (slow requests whose
// answers listed 10,000 keys or more, as etcd itself logged them) the
// cluster's requests finding, or its evidence when the metrics found it:
// etcd's own line names the request and its answer's size, so it is a
// measurement, not a log's hint, and it explains the slow applies and
// commits beside it.
func (j *doctorJudge) expensiveLogs(ms []result.LogMessage) {
	if len(ms) == 0 {
		return
	}
	n, ev := logEvidence(ms)
	if f := j.findingOf(CauseRequests, ""); f != nil && f.Member == "" {
		f.Evidence = append(f.Evidence, ev...)
		f.Score += scoreBacked.v()
		return
	}
	j.find(result.Finding{Status: result.Warn, Cause: string(CauseRequests), Score: scoreExpensiveLogs.v() + scoreLogLine.v()*min(float64(n), scoreLogLines.v()),
		Summary:  fmt.Sprintf("the members logged %d slow requests that listed 10,000 keys or more: listings without a limit", n),
		Evidence: ev,
		Fix:      "paginate listings (limit and continue), read from a watch cache or an informer instead of listing, and find the client (kube-apiserver audit logs; the log lines name the keys)",
		Source:   logsSource})
}

// logEvidence is one evidence line per message ("%q 4 times in m2's log,
// took ..."), and how many lines they count together.
func logEvidence(ms []result.LogMessage) (n int, ev []string) {
	for _, m := range ms {
		n += m.Count
		e := fmt.Sprintf("%q %d times in %s's log", m.Text, m.Count, m.Member)
		if m.Took != nil {
			e += fmt.Sprintf(", took %s to %s (median %s)", units.Seconds(m.Took.Min), units.Seconds(m.Took.Max), units.Seconds(m.Took.Median))
		}
		ev = append(ev, e)
	}
	return n, ev
}
