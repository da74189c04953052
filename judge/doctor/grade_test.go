package doctor

import (
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

func TestGrade(t *testing.T) {
	disk2 := result.Finding{Status: result.Fail, Cause: "disk", Member: "m2"}
	net := result.Finding{Status: result.Fail, Cause: "network"}
	disk3 := result.Finding{Status: result.Warn, Cause: "disk", Member: "m3"}
	for _, tc := range []struct {
		name          string
		cause, member string
		findings      []result.Finding
		want          string
	}{
		{"right", "disk", "m2", []result.Finding{disk2}, result.IncidentRight},
		{"same cause elsewhere is not another cause", "disk", "m2", []result.Finding{disk2, disk3}, result.IncidentRight},
		{"another cause beside", "disk", "m2", []result.Finding{disk2, net}, result.IncidentExtra},
		{"wrong member", "disk", "m3", []result.Finding{disk2}, result.IncidentWrongTop},
		{"wrong cause", "network", "", []result.Finding{disk2, net}, result.IncidentWrongTop},
		{"any member", "disk", "", []result.Finding{disk2}, result.IncidentRight},
		{"missed", "disk", "m2", nil, result.IncidentMissed},
		{"healthy", "", "", nil, result.IncidentRight},
		{"healthy with a warning", "", "", []result.Finding{disk3}, result.IncidentWrongTop},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Grade(Cause(tc.cause), tc.member, nil, &result.Doctor{Findings: tc.findings})
			if got.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", got.Outcome, got.Why, tc.want)
			}
			if (got.Outcome == result.IncidentRight) != (got.Why == "") {
				t.Errorf("why %q with outcome %s", got.Why, got.Outcome)
			}
		})
	}
}

// TestGradeFires: a check that must fire and did not makes an incident
// whose findings are right a miss.
func TestGradeFires(t *testing.T) {
	d := &result.Doctor{Findings: []result.Finding{{Status: result.Fail, Cause: "disk", Member: "m1"}},
		Steps: []result.DoctorStep{{Name: "complaints", Checks: []result.Verdict{{ID: "server.grpc_p99", Status: result.Pass}}}}}
	if got := Grade(CauseDisk, "", []string{"server.grpc_p99"}, d); got.Outcome != result.IncidentMissed {
		t.Fatalf("outcome %s, want missed", got.Outcome)
	}
	d.Steps[0].Checks = append(d.Steps[0].Checks, result.Verdict{ID: "server.grpc_p99", Status: result.Warn})
	if got := Grade(CauseDisk, "", []string{"server.grpc_p99"}, d); got.Outcome != result.IncidentRight {
		t.Fatalf("outcome %s (%s), want right", got.Outcome, got.Why)
	}
}
