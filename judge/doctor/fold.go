package doctor

import (
	"fmt"
	"slices"

	"github.com/etcdlab/etcdlab/result"
)

// consequence says that a finding is a symptom: what a root of one of
// the causes explains[effect] names makes happen, seen on member ("" for
// the cluster's).
// A root explains it when it is on the same member, on the leader (every
// member waits for the leader), or the cluster's; anyMember lets a root
// on any member explain it (a down or cut-off member makes its peers
// fail to send to it).
type consequence struct {
	member    string
	anyMember bool
	effect    effect
	// fromLogs marks a finding built from log lines alone: it may
	// explain other log findings, never a measured one (the metrics and
	// probes say what is happening; a log line may be a consequence).
	fromLogs bool
	// explain, if set, is the evidence line the root gains, naming what
	// rules the symptom's own cause out; default: its summary.
	explain func(root result.Finding) string
}

// symptom adds a finding that roots of the causes explains[c.effect]
// names explain: when
// one is found, fold makes it that root's evidence; when none is, it
// stands as a finding of its own.
func (j *doctorJudge) symptom(f result.Finding, c consequence) {
	j.find(f)
	j.symptoms[len(j.findings)-1] = c
}

// symptomOf is symptom with its arguments the other way round, so that a
// long finding literal comes last.
func (j *doctorJudge) symptomOf(c consequence, f result.Finding) { j.symptom(f, c) }

// fold turns every symptom a root explains into that root's evidence,
// naming the measurement that makes it a consequence, and drops it from
// the findings: an operator gets one finding per cause, not one per
// symptom. Among the roots that explain a symptom, the best-scored takes
// it. A symptom nothing explains stands as a root itself (a slow disk
// that no defragmentation explains explains the slow reads behind it);
// of symptoms that could only explain each other, the best-scored stands
// and the others follow it.
func (j *doctorJudge) fold() {
	pending := map[int]bool{}
	for i := range j.symptoms {
		pending[i] = true
	}
	drop := map[int]bool{}
	for len(pending) > 0 {
		progress := false
		for i := range j.findings {
			if !pending[i] {
				continue
			}
			if best := j.rootFor(i, func(k int) bool { return !pending[k] && !drop[k] }); best >= 0 {
				f, root := j.findings[i], &j.findings[best]
				line := fmt.Sprintf("%s: a consequence of %s, not a %s finding of its own", f.Summary, rootName(*root), f.Cause)
				if e := j.symptoms[i].explain; e != nil {
					line = e(*root)
				}
				root.Evidence = append(root.Evidence, line)
				drop[i] = true
				delete(pending, i)
				progress = true
			}
		}
		if progress {
			continue
		}
		// What no finding at all can explain stands; when every pending
		// symptom could be explained by another pending one, the
		// best-scored of them stands (the strongest symptom is the root
		// the others follow: many leader changes, the requests failing
		// in them).
		stood := false
		for i := range j.findings {
			if pending[i] && j.rootFor(i, func(k int) bool { return !drop[k] }) < 0 {
				delete(pending, i)
				stood = true
			}
		}
		if !stood {
			best := -1
			for i := range j.findings {
				if pending[i] && (best < 0 || j.findings[i].Score > j.findings[best].Score) {
					best = i
				}
			}
			delete(pending, best)
		}
	}
	kept := j.findings[:0]
	for i, f := range j.findings {
		if !drop[i] {
			kept = append(kept, f)
		}
	}
	j.findings = kept
	j.symptoms = map[int]consequence{}
}

// rootFor is the index of the best-scored finding among those eligible
// that explains symptom i, or -1.
func (j *doctorJudge) rootFor(i int, eligible func(int) bool) int {
	c := j.symptoms[i]
	best := -1
	for k := range j.findings {
		if k == i || !eligible(k) {
			continue
		}
		if rc, ok := j.symptoms[k]; ok && rc.fromLogs && !c.fromLogs {
			continue
		}
		r := j.findings[k]
		if !slices.Contains(explains[c.effect], Cause(r.Cause)) {
			continue
		}
		if !c.anyMember && c.member != "" && r.Member != "" && r.Member != c.member && !j.leads(r.Member) {
			continue
		}
		if best < 0 || r.Score > j.findings[best].Score {
			best = k
		}
	}
	return best
}

// leads reports whether member was the leader when doctor looked: it
// said so, or (when it did not answer) the others named it.
func (j *doctorJudge) leads(member string) bool {
	votes := 0
	var id string
	for _, m := range j.d.Members {
		if m.Name == member {
			if m.IsLeader {
				return true
			}
			id = m.ID
		}
	}
	for _, m := range j.d.Members {
		if id != "" && m.Reachable && m.LeaderID == id {
			votes++
		}
	}
	return 2*votes > len(j.d.Members)-1 && votes > 0
}

// rootName is "m1's disk", or "the cluster's quota".
func rootName(f result.Finding) string {
	if Cause(f.Cause) == CauseLeader && f.Member == "" {
		return "the cluster's elections"
	}
	if f.Member == "" {
		return "the cluster's " + f.Cause
	}
	return f.Member + "'s " + f.Cause
}
