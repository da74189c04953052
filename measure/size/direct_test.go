package size_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/load/sizing"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/measure/size"
	"github.com/etcdlab/etcdlab/result"
)

// TestScaledKneeMatchesDirect is the scaled-down path's check (issue 35's
// direct check, one of its targets; perf/size-direct.sh runs all three):
// 1,000 nodes and 30,000 pods on 3 members of 0.3 cores each in memory,
// searched directly (the load and the budgets as they are) and at half
// scale (half the load, each member idle + half of the rest). The knee the
// scaled search predicts must be within ±25% of the direct one. The quota
// is 8 GiB so that the database does not bound either search before the
// members' CPU does. It runs in the second half of the README's test
// command, without the race detector (the members run from the test
// binary, and a raced etcd is several times slower than the one users run).
func TestScaledKneeMatchesDirect(t *testing.T) {
	if testing.Short() {
		t.Skip("a search of several probes twice: minutes")
	}
	if os.Geteuid() != 0 {
		t.Skip("CPU budgets need root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	l, err := size.FromModel(sizing.Cluster{Nodes: 1000, Pods: 30000}, 8<<30)
	if err != nil {
		t.Fatal(err)
	}
	search := func(k float64) result.SizeCandidate {
		s, err := size.Run(ctx, size.Options{Load: l, Scale: k, ProbeTime: 15 * time.Second, LoadCores: -1,
			Candidates: []size.Candidate{{Members: 3, CPUs: 0.3, Disk: size.DiskTmpfs}}, Jobs: jobs.Registry(), Log: testLog{t}})
		if err != nil {
			t.Fatalf("scale %g: %v", k, err)
		}
		c := s.Candidates[0]
		if c.Above || c.Below || c.Error != "" {
			t.Fatalf("scale %g: the search did not bracket the knee (above %v, below %v, %s %s): no figure to compare", k, c.Above, c.Below, c.Error, c.Why)
		}
		t.Logf("scale %g: knee ×%.2f (%d nodes), broke first on %s: %s", k, c.Knee, c.KneeNodes, c.BrokeFirst, c.Why)
		return c
	}
	direct, scaled := search(1), search(0.5)
	ratio := scaled.Knee / direct.Knee
	t.Logf("scaled/direct knee: %.2f (%d against %d nodes)", ratio, scaled.KneeNodes, direct.KneeNodes)
	if ratio < 0.75 || ratio > 1.25 {
		t.Errorf("the scaled-down path predicts a knee at %d nodes, the direct search found %d: %.2f, outside ±25%%", scaled.KneeNodes, direct.KneeNodes, ratio)
	}
}

// testLog writes the search's lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(string(b))
	return len(b), nil
}
