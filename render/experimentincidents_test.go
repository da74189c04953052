package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestIncidentsTable: an incident catalogue's result shows its confusion
// table (injected, top finding, the others, the grade) and how many were
// right, in place of the bench cells' table; a skipped incident says why.
func TestIncidentsTable(t *testing.T) {
	t.Parallel()
	doc := &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "incidents", Cells: []result.Cell{
		{ID: "slow-m2/slow-disk-follower", Setup: "slow-m2", Workload: "slow-disk-follower", Status: result.CellOK, Doctor: &result.Doctor{},
			Incident: &result.Incident{ExpectCause: "disk", ExpectMember: "m2", TopStatus: "FAIL", TopCause: "disk", TopMember: "m2", Outcome: result.IncidentRight}},
		{ID: "far-m3/far-member", Setup: "far-m3", Workload: "far-member", Status: result.CellOK, Doctor: &result.Doctor{},
			Incident: &result.Incident{ExpectCause: "network", ExpectMember: "m3", TopStatus: "WARN", TopCause: "disk", TopMember: "m3",
				Others: []string{"FAIL network (cluster)"}, Outcome: result.IncidentWrongTop, Why: "the top finding is WARN disk on m3, not network on m3"}},
		{ID: "plain/healthy", Setup: "plain", Workload: "healthy", Status: result.CellOK, Doctor: &result.Doctor{},
			Incident: &result.Incident{Outcome: result.IncidentRight}},
		{ID: "plain/cpu-limit-leader", Setup: "plain", Workload: "cpu-limit-leader", Status: result.CellSkipped, Error: "cgroups unavailable: read-only file system"},
	}}}
	var b bytes.Buffer
	if err := ExperimentText(&b, doc, TerminalOptions{Wide: true}, Judged{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"| slow-disk-follower | disk on m2        | FAIL disk on m2 | none                   | right ",
		"| far-member         | network on m3     | WARN disk on m3 | FAIL network (cluster) | wrong-top: the top finding is WARN disk on m3, not network on m3 |",
		"| healthy            | nothing (healthy) | none            | none                   | right ",
		"| cpu-limit-leader   | -                 | -               | -                      | skipped: cgroups unavailable: read-only file system ",
		"cells: 4: 3 ok, 1 skipped",
		"2 of 3 incidents diagnosed right",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	if strings.Contains(out, "REQ/S") {
		t.Errorf("a bench table for doctor cells:\n%s", out)
	}
}
