package doctor

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// Judge judges what `etcdlab doctor` measured (doc.Doctor's members):
// it writes each step's checks, then the findings, the best-explained
// first, and the document's overall status (FAIL when a finding fails).
func Judge(doc *result.Document) {
	d := doc.Doctor
	if d == nil {
		return
	}
	dj := &doctorJudge{d: d, diskJob: doc.Verdicts, diskDoc: doc.Disk, stalled: map[string]bool{}, catchingUp: map[string]bool{}, symptoms: map[int]consequence{}}
	if doc.Disk != nil {
		dj.diskDir = doc.Disk.Dir
	}
	membership, reads, cpu := dj.membership(), dj.reads(), dj.cpuMemory()
	// The disk is judged before the network, although reported after it:
	// a member that applies behind its own slow disk (or a slow leader)
	// explains slow linearizable reads, which are then its evidence, not
	// the network's (explains).
	disk := dj.disk()
	network := dj.network()
	d.Steps = []result.DoctorStep{membership, reads, cpu, network, disk, dj.complaints(), dj.logs(), dj.history()}
	dj.fold()
	sort.SliceStable(dj.findings, func(i, j int) bool { return dj.findings[i].Score > dj.findings[j].Score })
	for i := range dj.findings {
		dj.findings[i].Rank = i + 1
	}
	d.Findings = append([]result.Finding{}, dj.findings...) // [] in JSON when there are none
	doc.Overall = result.Pass
	for _, f := range d.Findings {
		if f.Status == result.Fail {
			doc.Overall = result.Fail
			break
		}
		doc.Overall = result.Warn
	}
}

// doctorJudge collects findings while the steps are judged.
type doctorJudge struct {
	d        *result.Doctor
	findings []result.Finding
	// diskJob are the disk job's verdicts (doctor --data-dir), run in
	// diskDir.
	diskJob []result.Verdict
	diskDir string
	diskDoc *result.Disk
	// stalled are the members whose local reads stall (starvation): their
	// disk latencies include the stalls and are not a disk's evidence.
	stalled map[string]bool
	// catchingUp are the members catching up with the leader (catchUp):
	// their silence and distance are that, not a partition.
	catchingUp map[string]bool
	// symptoms are the findings (by index) that a root may explain
	// (fold).
	symptoms map[int]consequence
}

// find adds a finding; score orders findings (1 is at its threshold).
func (j *doctorJudge) find(f result.Finding) {
	if f.Status == "" {
		f.Status = result.Warn
	}
	j.findings = append(j.findings, f)
}

// versions are the distinct versions of the members named (all when
// none is).
func (j *doctorJudge) versions(names ...string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range j.d.Members {
		if m.Version == "" || seen[m.Version] || (len(names) > 0 && !slices.Contains(names, m.Name)) {
			continue
		}
		seen[m.Version] = true
		out = append(out, m.Version)
	}
	sort.Strings(out)
	return out
}

// check is a verdict on one member's figure: id's threshold, the member's
// name in What.
func check(id judge.ID, member string, v float64, display func(float64) string) result.Verdict {
	out := judge.Value(id, v, display)
	if member != "" {
		out.What = member + ": " + out.What
	}
	return out
}

// membership is step 1: every member reachable, one cluster, one leader
// everyone agrees on, applied indexes close, no alarm, the database
// against its quota and its fragmentation.
func (j *doctorJudge) membership() result.DoctorStep {
	st := result.DoctorStep{Name: "membership"}
	leaders, clusters := map[string]bool{}, map[string]bool{}
	var minApplied, maxApplied uint64
	reachable := 0
	for _, m := range j.d.Members {
		if !m.Reachable {
			st.Unseen = append(st.Unseen, fmt.Sprintf("%s (%s): %s", m.Name, m.Endpoint, m.Error))
			if m.Unresponsive {
				j.unresponsive(m)
				continue
			}
			j.symptomOf(consequence{member: m.Name, effect: effectDown}, result.Finding{Status: result.Fail, Cause: string(CauseMembership), Member: m.Name, Score: scoreUnreachable.v(),
				Summary:  fmt.Sprintf("%s does not answer at %s: %s", m.Name, m.Endpoint, m.Error),
				Evidence: []string{"Status from " + m.Endpoint + ": " + m.Error},
				Fix:      "check that the member runs and that its client URL is reachable from here; a cluster that lost a member has less fault tolerance",
				Source:   "etcdctl endpoint health"})
			continue
		}
		reachable++
		leaders[m.LeaderID] = true
		clusters[m.ClusterID] = true
		if minApplied == 0 || m.RaftAppliedIndex < minApplied {
			minApplied = m.RaftAppliedIndex
		}
		maxApplied = max(maxApplied, m.RaftAppliedIndex)
		for _, a := range m.Alarms {
			status, score := result.Warn, scoreAlarm.v()
			if strings.Contains(a, "NOSPACE") || strings.Contains(a, "CORRUPT") {
				status, score = result.Fail, scoreAlarmOutage.v()
			}
			j.find(result.Finding{Status: status, Cause: alarmCause(a), Member: m.Name, Score: score,
				Summary:  fmt.Sprintf("alarm %s is raised on %s", a, m.Name),
				Evidence: []string{"AlarmList: " + a + " on " + m.Name},
				Fix:      alarmFix(a), Source: "etcd maintenance guide (alarms)", Versions: j.versions(m.Name)})
		}
	}
	if reachable == 0 {
		return st
	}
	switch {
	case len(clusters) > 1:
		j.find(result.Finding{Status: result.Fail, Cause: string(CauseMembership), Score: scoreTwoClusters.v(), Summary: "the endpoints belong to different clusters",
			Evidence: []string{fmt.Sprintf("%d cluster IDs among the members", len(clusters))}, Fix: "give doctor the endpoints of one cluster", Source: "etcdctl endpoint status"})
	case leaders["0"] || len(leaders) > 1:
		j.symptom(result.Finding{Status: result.Fail, Cause: string(CauseLeader), Score: scoreNoAgreedLeader.v(), Summary: "the members do not agree on one leader",
			Evidence: []string{fmt.Sprintf("leaders reported: %s", strings.Join(slices.Sorted(maps.Keys(leaders)), ", "))},
			Fix:      "a cluster without an agreed leader cannot commit: look at the network between members and at their disks", Source: "etcd_server_has_leader (etcd mixin etcdNoLeader)"},
			consequence{anyMember: true, effect: effectLostPeers})
	}
	if lag := maxApplied - minApplied; float64(lag) > judge.LimitAppliedLag.Value() {
		j.symptom(result.Finding{Status: result.Warn, Cause: string(CauseMembership), Score: scoreAppliedLag.v(), Summary: fmt.Sprintf("a member's applied index is %s entries behind", humanize.Comma(int64(lag))),
			Evidence: []string{fmt.Sprintf("raft applied index from %d to %d", minApplied, maxApplied)},
			Fix:      "a member that falls behind is slow to apply (disk or CPU) or was partitioned; look at that member's disk", Source: "etcdctl endpoint status"},
			consequence{anyMember: true, effect: effectSlow})
	}
	j.quota(&st)
	j.catchUp()
	j.defragLength(&st)
	return st
}

func alarmCause(a string) string {
	if strings.Contains(a, "NOSPACE") {
		return string(CauseQuota)
	}
	return string(CauseMembership)
}

func alarmFix(a string) string {
	switch {
	case strings.Contains(a, "NOSPACE"):
		return "the database reached its quota and etcd refuses writes: compact, defragment, then `etcdctl alarm disarm`, and raise --quota-backend-bytes if the data needs it"
	case strings.Contains(a, "CORRUPT"):
		return "a member's data differs from the others': replace that member (remove, wipe, re-add) from a healthy snapshot"
	}
	return "see etcd's maintenance guide"
}

// quota judges the largest database against its member's quota
// (judge.LimitQuotaWarn, judge.LimitQuotaFail: etcd mixin
// etcdDatabaseQuotaLowSpace fires at the second; we warn from the first
// so there is time to act), and each database's fragmentation
// (judge.LimitFragInUse of a file over judge.LimitFragMinSize: etcd mixin
// etcdDatabaseHighFragmentationRatio).
func (j *doctorJudge) quota(st *result.DoctorStep) {
	quotaWarn, quotaFail := judge.LimitQuotaWarn.Value(), judge.LimitQuotaFail.Value()
	fragInUse, fragMinSize := judge.LimitFragInUse.Value(), judge.LimitFragMinSize.Value()
	var worst *result.DoctorMember
	for i := range j.d.Members {
		m := &j.d.Members[i]
		if m.Reachable && m.QuotaBytes > 0 && (worst == nil || float64(m.DBSize)/m.QuotaBytes > float64(worst.DBSize)/worst.QuotaBytes) {
			worst = m
		}
		if m.Reachable && float64(m.DBSize) > fragMinSize && float64(m.DBInUse) < fragInUse*float64(m.DBSize) {
			j.find(result.Finding{Status: result.Warn, Cause: string(CauseFragmentation), Member: m.Name, Score: scoreFragmentation.v(),
				Summary:  fmt.Sprintf("%s's database is %s, of which %s in use", m.Name, ibytes(float64(m.DBSize)), ibytes(float64(m.DBInUse))),
				Evidence: []string{fmt.Sprintf("db size %s, in use %s (%.0f%%)", ibytes(float64(m.DBSize)), ibytes(float64(m.DBInUse)), 100*float64(m.DBInUse)/float64(m.DBSize))},
				Fix:      "defragment the member (etcdctl defrag, one member at a time, outside busy hours)", Source: "etcd mixin etcdDatabaseHighFragmentationRatio"})
		}
	}
	if worst == nil {
		st.Unseen = append(st.Unseen, "the backend quota (etcd_server_quota_backend_bytes): no member's metrics had it")
		return
	}
	ratio := float64(worst.DBSize) / worst.QuotaBytes
	v := result.Verdict{ID: string(judge.ServerDBQuota), What: worst.Name + ": database size against the backend quota", Value: ratio, Unit: "ratio",
		Display:   fmt.Sprintf("%.0f%% (%s of %s)", 100*ratio, ibytes(float64(worst.DBSize)), ibytes(worst.QuotaBytes)),
		Threshold: fmt.Sprintf("< %s (warn from %s)", judge.LimitQuotaFail.Text(), judge.LimitQuotaWarn.Text()), Source: "etcd mixin etcdDatabaseQuotaLowSpace", Status: result.Pass}
	if ratio >= quotaWarn {
		v.Status = result.Warn
		if ratio >= quotaFail {
			v.Status = result.Fail
		}
		v.Explanation = "the database nears its quota; at the quota etcd raises NOSPACE and refuses every write"
		// Near the quota every write is at risk of NOSPACE: an outage, not
		// a slowdown, so it outranks the causes of slowness.
		ev := []string{fmt.Sprintf("db size %s, in use %s, quota %s (%s)", ibytes(float64(worst.DBSize)), ibytes(float64(worst.DBInUse)), ibytes(worst.QuotaBytes), v.Threshold)}
		if k := j.d.Keyspace; k != nil && k.Bytes > 0 && len(k.Prefixes) > 0 {
			p := largestGroup(k.Prefixes)
			ev = append(ev, fmt.Sprintf("the largest group of keys is %s: %d keys, %s, %.0f%% of the bytes the keyspace census read", p.Prefix, p.Keys, ibytes(float64(p.Bytes)), 100*float64(p.Bytes)/float64(k.Bytes)))
		}
		j.find(result.Finding{Status: v.Status, Cause: string(CauseQuota), Score: scoreQuota.v() + scoreQuotaSlope.v()*(ratio-quotaWarn),
			Summary:  fmt.Sprintf("the database is at %.0f%% of its quota: %s of %s on %s", 100*ratio, ibytes(float64(worst.DBSize)), ibytes(worst.QuotaBytes), worst.Name),
			Evidence: ev,
			Fix:      "compact old revisions and defragment, find what fills the keyspace (doctor --keyspace), and raise --quota-backend-bytes (at most 8 GiB recommended)",
			Source:   v.Source, Versions: j.versions(worst.Name)})
	}
	st.Checks = append(st.Checks, v)
}

func ibytes(v float64) string {
	if v < 0 {
		v = 0
	}
	return humanize.IBytes(uint64(v))
}

// largestGroup is the census group with the most bytes, preferring a
// Kubernetes resource (/registry/pods/) to the top level it is part of.
func largestGroup(ps []result.PrefixUsage) result.PrefixUsage {
	best := ps[0]
	for _, p := range ps {
		if strings.Count(p.Prefix, "/") >= 3 && (strings.Count(best.Prefix, "/") < 3 || p.Bytes > best.Bytes) {
			best = p
		}
	}
	if strings.Count(best.Prefix, "/") >= 3 && 2*best.Bytes < ps[0].Bytes {
		return ps[0] // the resource is a small part of its top level
	}
	return best
}
