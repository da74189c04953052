package size

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/result"
)

// TestKnee runs the search against probes that hold below a true knee:
// it must bracket it within the resolution, mark bounds as bounds, and
// name what broke first.
func TestKnee(t *testing.T) {
	for _, tc := range []struct {
		name         string
		truth        float64 // holds up to here
		quick        bool
		above, below bool
	}{
		{"knee above the target", 3.1, false, false, false},
		{"knee below the target", 0.3, false, false, false},
		{"knee just above the target, quick", 1.2, true, false, false},
		{"holds at the top", 100, false, true, false},
		{"breaks at the bottom", 0.01, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c result.SizeCandidate
			probe := func(_ context.Context, m float64, _ time.Duration) result.SizeProbe {
				p := result.SizeProbe{Multiplier: m, Holds: m <= tc.truth}
				if !p.Holds {
					p.Broke, p.Bottleneck = []string{result.SLOCommitP99}, "the disk"
				}
				return p
			}
			knee(context.Background(), &c, probe, tc.quick, 1000)
			if c.Above != tc.above || c.Below != tc.below {
				t.Fatalf("above %v below %v, want %v %v (knee %g)", c.Above, c.Below, tc.above, tc.below, c.Knee)
			}
			if tc.above || tc.below {
				return
			}
			res := resolution
			if tc.quick {
				res = resolutionQuick
			}
			if c.Knee > tc.truth || c.Knee*res < tc.truth {
				t.Errorf("knee %g, want within ×%g below %g", c.Knee, res, tc.truth)
			}
			if c.BrokeFirst != result.SLOCommitP99 || c.Why != "the disk" {
				t.Errorf("broke first %q (%q), want the probes' SLO and statement", c.BrokeFirst, c.Why)
			}
			if c.Holds != (tc.truth >= 1) {
				t.Errorf("holds %v at a knee of %g", c.Holds, tc.truth)
			}
			if c.KneeNodes != int(math.Round(c.Knee*1000)) {
				t.Errorf("knee nodes %d for ×%g of 1,000", c.KneeNodes, c.Knee)
			}
		})
	}
}

// TestKneeInconclusive: a probe the generator limited stops the search,
// and the knee is a bound (at least the last size that held), with the
// reason.
func TestKneeInconclusive(t *testing.T) {
	var c result.SizeCandidate
	probe := func(_ context.Context, m float64, _ time.Duration) result.SizeProbe {
		if m >= 4 {
			return result.SizeProbe{Multiplier: m, Inconclusive: "generator limit"}
		}
		return result.SizeProbe{Multiplier: m, Holds: true}
	}
	knee(context.Background(), &c, probe, false, 100)
	if c.Knee != 2 || !c.Above || len(c.Probes) != 3 || c.Why == "" {
		t.Errorf("knee %g above %v after %d probes (%q): want at least 2, stopped at the inconclusive probe with why", c.Knee, c.Above, len(c.Probes), c.Why)
	}
}

// TestScaleFor: the budget's idle share is not scaled, and the members
// fit in the lab's cores.
func TestScaleFor(t *testing.T) {
	r := &runner{idle: 0.02, labCores: 1.2}
	for _, tc := range []struct {
		c         Candidate
		k, budget float64
	}{
		{Candidate{Members: 3, CPUs: 0.3}, 1, 0.3},
		{Candidate{Members: 3, CPUs: 2}, (1.2 - 0.06) / (3 * 1.98), 0.4},
		{Candidate{Members: 5, CPUs: 8}, (1.2 - 0.1) / (5 * 7.98), 0.24},
	} {
		k, b := r.scaleFor(tc.c)
		if math.Abs(k-tc.k) > 1e-9 || math.Abs(b-tc.budget) > 0.001 {
			t.Errorf("%s: k %g budget %g, want %g %g", tc.c.Name(), k, b, tc.k, tc.budget)
		}
		if float64(tc.c.Members)*b > r.labCores+0.001 {
			t.Errorf("%s: %d members of %g cores exceed the lab's %g", tc.c.Name(), tc.c.Members, b, r.labCores)
		}
	}
}

// TestScaleProfile: rates and keys scale, watchers do not, the series
// goes, and the copy leaves the original alone.
func TestScaleProfile(t *testing.T) {
	p, err := replay.ReadFile("sample:kube")
	if err != nil {
		t.Fatal(err)
	}
	q, err := scaleProfile(p, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if q.Operations[0].Rate != p.Operations[0].Rate/2 {
		t.Errorf("rate %g from %g at half scale", q.Operations[0].Rate, p.Operations[0].Rate)
	}
	if q.Keyspace.Keys != (p.Keyspace.Keys+1)/2 && q.Keyspace.Keys != p.Keyspace.Keys/2 {
		t.Errorf("keys %d from %d at half scale", q.Keyspace.Keys, p.Keyspace.Keys)
	}
	if p.Watches != nil && q.Watches.Watchers != p.Watches.Watchers {
		t.Errorf("watchers %d from %d: they are the apiservers', not the size's", q.Watches.Watchers, p.Watches.Watchers)
	}
	if q.Series != nil {
		t.Error("a scaled profile keeps its series")
	}
	share := capPreload(q, 1<<10)
	if share >= 1 || share <= 0 {
		t.Errorf("a 1 KiB cap kept %g of the keyspace", share)
	}
}

// TestKneeDiskRetry: a probe that broke only on the disk's SLOs runs
// once more, and the second verdict counts.
func TestKneeDiskRetry(t *testing.T) {
	var c result.SizeCandidate
	calls := map[float64]int{}
	probe := func(_ context.Context, m float64, _ time.Duration) result.SizeProbe {
		calls[m]++
		if m == 1 && calls[m] == 1 {
			return result.SizeProbe{Multiplier: m, Broke: []string{result.SLOWALFsyncP99}}
		}
		return result.SizeProbe{Multiplier: m, Holds: m <= 2}
	}
	knee(context.Background(), &c, probe, true, 100)
	if !c.Holds || calls[1] != 2 || c.Knee < 2 {
		t.Errorf("holds %v after %d probes at ×1, knee %g: want the second verdict (holds) and the knee at 2 or above", c.Holds, calls[1], c.Knee)
	}
}

// TestSweepTemp: a dead run's probe directory goes, a live one's stays.
func TestSweepTemp(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dead := filepath.Join(os.TempDir(), "etcdlab-size-999999999-1")
	live := filepath.Join(os.TempDir(), fmt.Sprintf("etcdlab-size-%d-1", os.Getppid()))
	for _, d := range []string{dead, live} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepTemp()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead run's directory stayed: %v", err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("a live run's directory went: %v", err)
	}
}
