package bottleneck

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// checkCell is a check cell as measure/check writes it: one run per level
// with no server series, the members' figures in the check's levels.
func checkCell(rps, walP99, commitP99 float64) result.Cell {
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	run := result.Run{Name: "level s: 150 writes/s, 50 clients", Clients: 50, Iteration: 1, Start: start, End: start.Add(4 * time.Second),
		Stats: result.Stats{Requests: int64(rps * 4), DurationSeconds: 4, ThroughputRPS: rps, Latency: result.Latency{P50: 0.3, P99: 0.9}}}
	return result.Cell{ID: "hdd/check", Setup: "hdd", Workload: "check", Status: result.CellOK, Runs: []result.Run{run},
		Environment: result.Environment{LocalCluster: true, Members: 3},
		Check: &result.Check{Mode: "live", Levels: []result.CheckLevel{{Name: "s", Rate: 150, Clients: 50,
			WalFsyncP99: walP99, BackendCommitP99: commitP99, MembersCPUCores: 0.12}}}}
}

// TestCheckCellUsesItsScrapes: issue 33's hdd-diagnosis run judged WAL
// fsync p99 568 ms and commit p99 477 ms from the members' metrics in its
// check cell, whose statement still said they were not scraped. The
// statement is made from the check's scrapes: the disk when the level's
// rate was missed, the load below capacity (the disk's excess still said)
// when it was followed, and "not scraped" only when the check saw nothing.
func TestCheckCellUsesItsScrapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cell      result.Cell
		resource  string
		has, hasn []string
	}{
		{"rate missed on the HDD", checkCell(41, 0.568, 0.477), ResourceDisk,
			[]string{"568.00 ms", "477.00 ms", "56.8x etcd's 10 ms", "level s", "41 req/s", "the check scraped"}, []string{"not scraped"}},
		{"rate followed on the HDD", checkCell(149, 0.568, 0.477), ResourceNone,
			[]string{"below capacity", "568.00 ms", "56.8x etcd's 10 ms"}, []string{"not scraped"}},
		{"commit past its limit, fsync not", checkCell(41, 0.004, 0.1), ResourceDisk,
			[]string{"backend commit p99 is 4.0x etcd's 25 ms"}, nil},
		{"a fast disk", checkCell(149, 0.002, 0.004), ResourceUnknown,
			[]string{"nothing the check scraped was past its limit", "2.00 ms", "0.12 cores"}, []string{"not scraped"}},
		{"nothing observed", checkCell(149, 0, 0), ResourceUnknown,
			[]string{"the members' metrics were not scraped"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := tc.cell
			if tc.name == "nothing observed" {
				c.Check.Levels[0].MembersCPUCores = 0
			}
			b := Cell(experiment(c), 0, Options{})
			if b == nil || b.Resource != tc.resource {
				t.Fatalf("resource: %+v, want %s", b, tc.resource)
			}
			for _, s := range tc.has {
				if !strings.Contains(b.Statement, s) {
					t.Errorf("statement lacks %q: %s", s, b.Statement)
				}
			}
			for _, s := range tc.hasn {
				if strings.Contains(b.Statement, s) {
					t.Errorf("statement has %q: %s", s, b.Statement)
				}
			}
		})
	}
}
