package experiment

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/result"
)

// TestIncidents runs every incident of the built-in catalogue, each on its
// own fresh cluster, and wants the doctor's diagnosis right: the top
// finding is the injected cause on the injected member and no other
// finding names another cause (issue 23's acceptance). An incident the
// machine cannot inject (no cgroup to write, no FUSE for a slow disk)
// is skipped with the reason.
func TestIncidents(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a cluster per incident")
	}
	s, err := loadSpec("incidents")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p.Cells {
		t.Run(c.Workload.Name, func(t *testing.T) {
			if o, _ := s.clusterOptions(c.Setup, setupEnv{}); o.FsyncDelay != nil || len(o.MemberFsyncDelay) > 0 {
				if err := slowfs.Available(); err != nil {
					t.Skip(err)
				}
			}
			// The machine is shared and noisy: an incident graded wrong runs
			// once more, on a fresh cluster, and fails only when it is wrong
			// again; the first diagnosis is logged. CI runs this test alone
			// and without the race detector (README): other packages' tests
			// beside it, or members built with the race detector, are load
			// no incident injected.
			for attempt := 1; ; attempt++ {
				why, skip := runIncident(t, p, c)
				if skip != "" {
					t.Skip(skip)
				}
				if why == "" {
					return
				}
				if attempt == 2 {
					t.Fatal(why)
				}
				t.Logf("attempt 1: %s", why)
			}
		})
	}
}

// runIncident runs cell c of plan p alone and returns what was wrong with
// its diagnosis ("" when it was right), or why it was skipped.
func runIncident(t *testing.T, p *Plan, c Cell) (why, skip string) {
	t.Helper()
	one := *p
	one.Cells = []Cell{c}
	doc, err := Run(context.Background(), Options{Plan: &one, DataDir: t.TempDir()})
	if doc == nil || len(doc.Experiment.Cells) != 1 {
		t.Fatalf("no cell: %v", err)
	}
	cell := doc.Experiment.Cells[0]
	if cell.Status == result.CellSkipped {
		return "", cell.Error
	}
	if err != nil || cell.Status != result.CellOK || cell.Incident == nil {
		return fmt.Sprintf("cell %s: %s %s (%v); notes %v", cell.ID, cell.Status, cell.Error, err, cell.Notes), ""
	}
	in := cell.Incident
	var b strings.Builder
	for _, f := range cell.Doctor.Findings {
		b.WriteString("\n  " + f.Status + " " + f.Cause + " " + f.Member + ": " + f.Summary)
		for _, e := range f.Evidence {
			b.WriteString("\n      " + e)
		}
	}
	if in.Outcome == result.IncidentRight {
		t.Logf("%s right; notes %q%s", c.Workload.Name, cell.Notes, b.String())
		return "", ""
	}
	return fmt.Sprintf("%s: %s%s", in.Outcome, in.Why, b.String()), ""
}
