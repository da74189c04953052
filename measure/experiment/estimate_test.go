package experiment

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/buildcache"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// TestCosts: every fixed cost of the estimate has one row with its
// measured source.
func TestCosts(t *testing.T) {
	t.Parallel()
	seen := map[job.CostID]bool{}
	for _, c := range job.Costs() {
		if seen[c.ID] || c.What == "" || c.Source == "" {
			t.Errorf("row %d: duplicate or without what and source: %+v", c.ID, c)
		}
		seen[c.ID] = true
	}
	for id := job.CostClusterStart; id <= job.CostMemberPutCore; id++ {
		if !seen[id] {
			t.Errorf("CostID %d has no row", id)
		}
	}
}

// TestEstimateBesideMeasured holds built-ins' quick estimates within ±25%
// of their wall time measured on a quiet machine (docs/benchmarks.md).
// leader-vs-all's estimate was 52 s against 182 s before it modelled the
// members' CPU budgets (1.04 after); its file has changed since (issue 33:
// etcd 3.5 and a budget sweep), so its row waits for a quiet-machine run
// of the new file. With an empty build cache (ETCDLAB_CACHE_DIR) a
// setup on an etcd version counts one build, once.
func TestEstimateBesideMeasured(t *testing.T) {
	t.Setenv(buildcache.EnvDir, t.TempDir())
	for _, tc := range []struct {
		name     string
		measured time.Duration
		builds   int
	}{
		{"incidents", 222 * time.Second, 0},  // 3.7 min, 1e5a388, 2026-11-26
		{"versions", 343*time.Second + 0, 3}, // 5 min 43 s, every version cached then: 3.5, 3.6, 3.7 built here
	} {
		s, err := loadSpec(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Plan("quick")
		if err != nil {
			t.Fatal(err)
		}
		if p.Builds != time.Duration(tc.builds)*job.CostEtcdBuild.D() {
			t.Errorf("%s: builds %v, want %d", tc.name, p.Builds, tc.builds)
		}
		est := p.Estimate() - p.Builds
		if r := est.Seconds() / tc.measured.Seconds(); r < 0.75 || r > 1.25 {
			t.Errorf("%s --quick: estimate %v (builds left out) against %v measured: %.2f", tc.name, est, tc.measured, r)
		}
	}
}

// TestEstimateBuildsOnce: a version the cache lacks costs one build, at
// its first setup only; a cached one none.
func TestEstimateBuildsOnce(t *testing.T) {
	cache := t.TempDir()
	t.Setenv(buildcache.EnvDir, cache)
	text := "name: b\nsetups:\n  - {name: a, members: 1, etcd: {version: 3.5.35}}\n  - {name: b, members: 1, etcd: {version: 3.5.35}}\nworkloads:\n  - name: put\n    bench: put --total=10\n"
	plan := func() *Plan {
		s, err := parseSpec("x.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Plan("")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan()
	if d := p.Cells[0].Estimate - p.Cells[1].Estimate; d != job.CostEtcdBuild.D() {
		t.Errorf("uncached: first cell %v, second %v: want the build once", p.Cells[0].Estimate, p.Cells[1].Estimate)
	}
	dir := filepath.Join(cache, "etcd", "v3.5.35")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p := plan(); p.Cells[0].Estimate != p.Cells[1].Estimate {
		t.Errorf("cached: %v and %v", p.Cells[0].Estimate, p.Cells[1].Estimate)
	}
}
