package doctor

import (
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// Grade compares a diagnosis with what was injected into the cluster
// (cause and member; member "" accepts the cause on any member or the
// cluster's; cause "" is a healthy cluster, which wants no finding) and
// with the checks that must fire (verdict IDs that must be WARN or FAIL
// in a step: judge.ServerGRPCP99 is etcd's etcdGRPCRequestsSlow), and
// returns the confusion table's row. It is a pure function.
func Grade(expectCause Cause, expectMember string, fires []string, d *result.Doctor) result.Incident {
	in := grade(string(expectCause), expectMember, d.Findings)
	if in.Outcome != result.IncidentRight {
		return in
	}
	for _, id := range fires {
		if !fired(d, id) {
			in.Outcome, in.Why = result.IncidentMissed, "check "+id+" did not fire"
			break
		}
	}
	return in
}

// fired reports whether a check with verdict ID id is WARN or FAIL in a
// step of d.
func fired(d *result.Doctor, id string) bool {
	for _, st := range d.Steps {
		for _, v := range st.Checks {
			if v.ID == id && (v.Status == result.Warn || v.Status == result.Fail) {
				return true
			}
		}
	}
	return false
}

func grade(expectCause, expectMember string, findings []result.Finding) result.Incident {
	in := result.Incident{ExpectCause: expectCause, ExpectMember: expectMember, Outcome: result.IncidentRight}
	if len(findings) > 0 {
		t := findings[0]
		in.TopStatus, in.TopCause, in.TopMember = t.Status, t.Cause, t.Member
		for _, f := range findings[1:] {
			in.Others = append(in.Others, describe(f))
		}
	}
	switch {
	case expectCause == "" && len(findings) > 0:
		in.Outcome, in.Why = result.IncidentWrongTop, "a healthy cluster got "+describe(findings[0])
	case expectCause == "":
	case len(findings) == 0:
		in.Outcome, in.Why = result.IncidentMissed, "no finding"
	case findings[0].Cause != expectCause || (expectMember != "" && findings[0].Member != expectMember):
		in.Outcome, in.Why = result.IncidentWrongTop, fmt.Sprintf("the top finding is %s, not %s", describe(findings[0]), where(expectCause, expectMember))
	default:
		var wrong []string
		for _, f := range findings[1:] {
			if f.Cause != expectCause {
				wrong = append(wrong, describe(f))
			}
		}
		if len(wrong) > 0 {
			in.Outcome, in.Why = result.IncidentExtra, "beside it: "+strings.Join(wrong, "; ")
		}
	}
	return in
}

// describe is "FAIL disk on m2" (or "... on the cluster").
func describe(f result.Finding) string {
	return f.Status + " " + where(f.Cause, f.Member)
}

func where(cause, member string) string {
	if member == "" {
		return cause + " (cluster)"
	}
	return cause + " on " + member
}
