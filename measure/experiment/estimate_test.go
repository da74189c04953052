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

// TestEstimateBesideMeasured holds every built-in's quick estimate within
// ±25% of its wall time measured on a quiet machine (perf/estimates.sh
// quick, docs/benchmarks.md: 75a86e9, 2026-11-28, load
// average under 1 on 2 cores). With an empty build cache
// (ETCDLAB_CACHE_DIR) a setup on an etcd version counts one build, once;
// builds are left out of the comparison (every version was cached when
// the wall times were measured).
func TestEstimateBesideMeasured(t *testing.T) {
	t.Setenv(buildcache.EnvDir, t.TempDir())
	for _, tc := range []struct {
		name     string
		measured time.Duration
		builds   int
	}{
		{"disk-qualification", 56 * time.Second, 0},
		{"distance-sweep", 406 * time.Second, 0},
		{"hdd-diagnosis", 119 * time.Second, 0},
		{"incidents", 215 * time.Second, 0},
		{"leader-vs-all", 170 * time.Second, 1},
		{"multicloud", 257 * time.Second, 0},
		{"storage-sweep", 297 * time.Second, 0},
		{"upgrade", 108 * time.Second, 3}, // 3.5.35 to start, 3.6.16 and 3.7.3 to upgrade to
		{"versions", 343 * time.Second, 3},
		{"replay", 316 * time.Second, 0}, // 2026-11-28, issue 34's code
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
