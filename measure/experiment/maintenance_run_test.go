package experiment

import (
	"context"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

const maintenanceCell = `name: maint
setups:
  - {name: three, members: 3, storage: tmpfs}
workloads:
  - name: policy
    maintenance: {op: defragment, order: leader-last, db: 24MiB, fragmentation: 0.5, rounds: 2, settle: 1s, tail: 1s, load: ["--conns=1 --clients=4 put --rate=40 --val-size=256"]}
`

// TestMaintenanceCell runs a maintenance policy on a real 3-member
// cluster under a pinned load: two rounds, each defragmenting the three
// members, followers first; every operation has its record (the member's
// database before and after, its blocked window), what the clients saw
// during it and the round's figures; the curve takes none of a policy's.
func TestMaintenanceCell(t *testing.T) {
	t.Parallel()
	doc, err := Run(context.Background(), Options{Plan: plan(t, maintenanceCell), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Experiment.Cells[0]
	m := c.Maintenance
	if c.Status != result.CellOK || m == nil || len(m.Rounds) != 2 || m.Order != result.OrderLeaderLast || m.Load == "" {
		t.Fatalf("cell %s %q: %+v", c.Status, c.Error, m)
	}
	for i, r := range m.Rounds {
		if len(r.Ops) != 3 || r.Fragmentation < 0.3 || r.DBBytes <= 0 || len(r.During) == 0 || len(r.Before) == 0 || r.LeaderChanges < 0 {
			t.Fatalf("round %d: %+v", i+1, r)
		}
		seen := map[string]bool{}
		for _, o := range r.Ops {
			seen[o.Member] = true
			if o.Op != result.OpDefragment || o.Error != "" || o.Seconds <= 0 || o.DBBytesAfter >= o.DBBytesBefore || len(o.Clients) == 0 || !o.Ended.After(o.Began) {
				t.Errorf("round %d: operation %+v", i+1, o)
			}
		}
		if len(seen) != 3 {
			t.Errorf("round %d defragmented %v, want every member once", i+1, seen)
		}
		if w, _ := r.WorstP99(); w <= 0 {
			t.Errorf("round %d: no client latency during the maintenance: %+v", i+1, r.During)
		}
	}
	if p := result.Policies(doc.Experiment.Cells); len(p) != 1 || p[0].Ops != 6 || p[0].Rounds != 2 {
		t.Errorf("policies %+v", p)
	}
	if d := result.DefragCurves(doc.Experiment.Cells); len(d) != 0 {
		t.Errorf("a policy's defragmentations in the curve: %+v", d)
	}
}
