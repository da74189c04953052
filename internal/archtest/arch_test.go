package archtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/etcdlab/etcdlab/"

// rule says which of the module's packages a group of packages may import
// (production code; tests may import more). Patterns end in "/*" for a
// folder's packages, or name one package.
type rule struct {
	pkgs  []string
	allow []string
	// max, if positive, is how many of the module's packages each of pkgs
	// may import at most, whatever allow lets it.
	max int
}

// leaves import nothing of ours but internal helpers.
var leaves = []string{"internal/proc", "internal/version", "internal/units", "internal/atomicfile"}

// testOnly are the packages only tests may import: test kits, whose
// helpers fail a testing.TB. No production package imports them, whatever
// its row allows.
var testOnly = []string{"lab/clustertest", "internal/golden"}

// rules is docs/architecture.md's table. Every package must match one row;
// the first match applies.
func rules() []rule {
	return []rule{
		{pkgs: []string{"cmd/*", "perf/*"}, allow: []string{"*"}},
		{pkgs: []string{"invalid", "result", "internal/*"}, allow: leaves},
		{pkgs: []string{"emulate/*"}, allow: append([]string{"emulate/*", "invalid"}, leaves...)},
		// lab/ states its own import graph, one row per package, from
		// the bottom up: mechanisms that import nothing of lab's (a
		// child process, a cgroup, certificates, a client, the build
		// procedure), what builds on one of them (etcd's and
		// Kubernetes' recipes, a member's config), then what runs
		// clusters and control planes from them, then what reads
		// clusters (topologies, the test kit). A new lab package gets a
		// row of its own.
		{pkgs: []string{"lab/child", "lab/cgroup", "lab/pki"}, allow: leaves},
		{pkgs: []string{"lab/buildcache", "lab/etcdclient"}, allow: append([]string{"invalid"}, leaves...)},
		{pkgs: []string{"lab/etcdbuild", "lab/kubebuild"}, allow: append([]string{"lab/buildcache", "invalid"}, leaves...)},
		{pkgs: []string{"lab/member"}, allow: append([]string{"lab/etcdbuild", "emulate/syscalldelay", "invalid"}, leaves...)},
		{pkgs: []string{"lab/cluster"}, allow: append([]string{"lab/child", "lab/cgroup", "lab/pki", "lab/etcdclient", "lab/etcdbuild", "lab/member", "emulate/*", "invalid", "result"}, leaves...)},
		{pkgs: []string{"lab/kubecp"}, allow: append([]string{"lab/child", "lab/pki", "lab/etcdclient", "lab/kubebuild", "invalid"}, leaves...)},
		{pkgs: []string{"lab/topology"}, allow: append([]string{"lab/cluster", "lab/member", "emulate/*", "invalid", "result"}, leaves...)},
		{pkgs: []string{"lab/clustertest"}, allow: append([]string{"lab/cluster", "lab/member", "lab/etcdclient", "invalid"}, leaves...)},
		// load/kube records its requests with load's Recorder (load
		// imports no workload package, so there is no cycle).
		{pkgs: []string{"load/kube", "load/replay"}, allow: append([]string{"load", "load/*", "lab/etcdclient", "result", "invalid"}, leaves...)},
		{pkgs: []string{"load", "load/*"}, allow: append([]string{"load/*", "lab/etcdclient", "result", "invalid"}, leaves...)},
		{pkgs: []string{"result/*"}, allow: append([]string{"result"}, leaves...)},
		// judge is the table (limits, thresholds, verdict IDs) and how one
		// value is judged; its domains (experiment bottlenecks, the
		// doctor) read it and do not import each other.
		{pkgs: []string{"judge"}, allow: append([]string{"result", "invalid"}, leaves...)},
		{pkgs: []string{"judge/*"}, allow: append([]string{"judge", "result", "invalid"}, leaves...)},
		// observe/ holds the instruments: what the members and the machine
		// say about themselves (scrapes, series, Prometheus history, logs,
		// the host). They produce no result documents and run no load:
		// load's recorder is the client side, observe the server side.
		{pkgs: []string{"observe/series"}, allow: append([]string{"observe/metrics", "result", "invalid"}, leaves...)},
		{pkgs: []string{"observe/promhist"}, allow: append([]string{"observe/metrics", "result", "invalid"}, leaves...)},
		{pkgs: []string{"observe/*"}, allow: append([]string{"result", "invalid"}, leaves...)},
		// measure/bench is etcd benchmark's command: the CLI's, the
		// experiment's bench job's (measure/jobs runs bench command lines) and the
		// agents' (a bench run with their coordination as an Observer,
		// merged), nobody else's building block; it imports none of them.
		// measure/experiment runs experiment files: setups, the plan,
		// cells (cluster, fault timeline, teardown) and the result. What a
		// cell runs is a job of measure/experiment/job's registry, which
		// the CLI hands it: it imports no command.
		{pkgs: []string{"measure/experiment"}, max: 12, allow: append([]string{"lab/*", "emulate/*", "load", "observe/*", "measure/experiment/job", "judge/bottleneck", "result", "invalid"}, leaves...)},
		// measure/experiment/job is the seam between the experiment runner
		// and its jobs: interfaces and plain data, no command.
		{pkgs: []string{"measure/experiment/job"}, allow: append([]string{"lab/cluster", "lab/etcdclient", "load", "result", "invalid"}, leaves...)},
		// measure/jobs are the experiment's jobs, one adapter per command
		// (bench, disk, check, doctor); they do not import the runner.
		{pkgs: []string{"measure/jobs"}, allow: append([]string{"lab/*", "emulate/*", "load", "load/*", "observe/*", "measure/experiment/job", "measure/bench", "measure/engines", "measure/agents", "measure/check", "measure/disk", "measure/doctor", "judge", "judge/*", "result", "invalid"}, leaves...)},
		// measure/doctor is read-only: it reaches members (lab/etcdclient),
		// reads metrics, logs and Prometheus, and runs the disk job.
		{pkgs: []string{"measure/doctor"}, allow: append([]string{"lab/etcdclient", "measure/disk", "observe/*", "judge", "judge/*", "result", "invalid"}, leaves...)},
		{pkgs: []string{"measure/agents"}, allow: append([]string{"lab/*", "emulate/*", "load", "load/*", "observe/*", "measure/bench", "judge", "judge/*", "result", "invalid"}, leaves...)},
		// bench's engines that bench cannot import (they implement
		// bench.Engine): the real control plane; engines is their table,
		// for the CLI and the experiment's bench job.
		{pkgs: []string{"measure/kubereal"}, allow: append([]string{"lab/*", "load", "load/*", "observe/metrics", "measure/bench", "result", "invalid"}, leaves...)},
		// measure/profile is read-only like doctor: it reaches members,
		// reads metrics, Prometheus and kube-apiserver metrics, and writes
		// a load/replay profile; it imports no load generator.
		{pkgs: []string{"measure/profile"}, allow: append([]string{"lab/etcdclient", "load/replay", "observe/*", "result", "invalid"}, leaves...)},
		// measure/replay is bench's replay engine and its fidelity table.
		{pkgs: []string{"measure/replay"}, allow: append([]string{"lab/*", "load", "load/*", "observe/*", "measure/bench", "measure/profile", "result", "invalid"}, leaves...)},
		// measure/size searches a cluster's size on candidate clusters:
		// each probe is a one-cell experiment (the runner and the job
		// registry the CLI hands it), its load a load/sizing model or a
		// load/replay profile; it imports no command.
		{pkgs: []string{"measure/size"}, allow: append([]string{"lab/topology", "lab/etcdbuild", "load/replay", "load/sizing", "measure/experiment", "measure/experiment/job", "judge", "result", "invalid"}, leaves...)},
		// measure/sizejob is the experiment's size job: it runs
		// measure/size's search, whose probes are experiments, so it is
		// not one of measure/jobs (which do not import the runner); the
		// CLI adds it to their registry.
		{pkgs: []string{"measure/sizejob"}, allow: append([]string{"measure/experiment/job", "measure/size", "load/sizing", "result", "invalid"}, leaves...)},
		{pkgs: []string{"measure/engines"}, allow: []string{"measure/bench", "measure/kubereal", "measure/replay"}},
		{pkgs: []string{"measure/bench"}, allow: append([]string{"lab/*", "emulate/*", "load", "load/*", "observe/*", "judge", "judge/*", "result", "invalid"}, leaves...)},
		{pkgs: []string{"measure/*"}, allow: append([]string{"lab/*", "emulate/*", "load", "load/*", "observe/*", "measure/check", "measure/disk", "judge", "judge/*", "result", "invalid"}, leaves...)},
		// render draws what result documents state (and what the CLI
		// worked out with judge and passed in, render.Judged): a renderer
		// never judges, so it imports no judge package.
		{pkgs: []string{"render", "render/*"}, allow: append([]string{"render/*", "result", "result/*"}, leaves...)},
		// deploy holds dashboards, rules and manifests, no code: only its
		// tests import anything (judge, load, lab for real expositions).
		{pkgs: []string{"deploy", "deploy/*"}, allow: nil},
		// build packs etcdlab into its container image; it runs the go
		// tool on the module, it imports none of it.
		{pkgs: []string{"build/image"}, allow: nil},
		{pkgs: []string{"build/image/mkimage"}, allow: []string{"build/image"}},
	}
}

func match(pattern, pkg string) bool {
	if pattern == "*" {
		return true
	}
	if dir, ok := strings.CutSuffix(pattern, "/*"); ok {
		return strings.HasPrefix(pkg, dir+"/")
	}
	return pattern == pkg
}

func matchAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if match(p, pkg) {
			return true
		}
	}
	return false
}

// check returns one line per import that breaks the rules; imports maps a
// package (module-relative) to the module packages it imports.
func check(imports map[string][]string) []string {
	var bad []string
	for pkg, deps := range imports {
		var r *rule
		for i, c := range rules() {
			if matchAny(c.pkgs, pkg) {
				r = &rules()[i]
				break
			}
		}
		if r == nil {
			bad = append(bad, pkg+": no rule (add it to docs/architecture.md and this test)")
			continue
		}
		if n := countOthers(pkg, deps); r.max > 0 && n > r.max {
			bad = append(bad, fmt.Sprintf("%s imports %d of the module's packages, more than its %d", pkg, n, r.max))
		}
		for _, d := range deps {
			if d == pkg {
				continue
			}
			if matchAny(testOnly, d) {
				bad = append(bad, pkg+" imports "+d+" (only tests may)")
				continue
			}
			if !matchAny(r.allow, d) {
				bad = append(bad, pkg+" imports "+d)
			}
		}
	}
	return bad
}

// countOthers is how many distinct packages deps names besides pkg.
func countOthers(pkg string, deps []string) int {
	seen := map[string]bool{pkg: true}
	for _, d := range deps {
		seen[d] = true
	}
	return len(seen) - 1
}

// moduleImports lists the module's packages and their imports of each other.
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !exists(filepath.Join(dir, "go.mod")) {
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
		} else {
			t.Fatal("go.mod not found")
		}
	}
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		imports[pkg] = nil
		for _, f := range fields[1:] {
			if d, ok := strings.CutPrefix(f, module); ok {
				imports[pkg] = append(imports[pkg], d)
			}
		}
	}
	return imports
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestImportRules fails when a package imports across the architecture's
// boundaries, or when a package belongs to no stage.
func TestImportRules(t *testing.T) {
	t.Parallel()
	imports := moduleImports(t)
	if len(imports) < 20 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
	for _, line := range check(imports) {
		t.Error(line)
	}
}

// TestRulesCatch shows the rules reject what the architecture forbids.
func TestRulesCatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pkg, dep string
		ok       bool
	}{
		{"measure/check", "measure/bench", false},
		{"measure/experiment", "measure/bench", false},
		{"measure/agents", "measure/bench", true},
		{"measure/experiment", "measure/agents", false},
		{"measure/experiment", "measure/check", false},
		{"measure/experiment", "measure/disk", false},
		{"measure/experiment", "measure/jobs", false},
		{"measure/experiment", "measure/experiment/job", true},
		{"measure/experiment/job", "measure/bench", false},
		{"measure/experiment/job", "lab/cluster", true},
		{"measure/jobs", "measure/bench", true},
		{"measure/jobs", "measure/doctor", true},
		{"measure/jobs", "measure/experiment", false},
		{"measure/jobs", "measure/size", false},
		{"measure/sizejob", "measure/size", true},
		{"measure/sizejob", "measure/experiment", false},
		{"measure/bench", "measure/agents", false},
		{"measure/doctor", "measure/bench", false},
		{"measure/experiment", "render", false},
		{"measure/disk", "render", false},
		{"render", "result/compare", true},
		{"render", "measure/check", false},
		{"load", "lab/cluster", false},
		{"load", "lab/etcdclient", true},
		{"emulate/wan", "lab/cluster", false},
		{"lab/cluster", "emulate/wan", true},
		{"lab/cluster", "internal/exitcode", false},
		{"judge", "render", false},
		{"render", "judge", false},
		{"render", "judge/bottleneck", false},
		{"render", "judge/doctor", false},
		{"judge/bottleneck", "judge", true},
		{"judge/doctor", "judge", true},
		{"judge", "judge/doctor", false},
		{"judge/doctor", "judge/bottleneck", false},
		{"measure/experiment", "judge/bottleneck", true},
		{"measure/experiment", "measure/doctor", false},
		{"measure/experiment", "judge/doctor", false},
		{"measure/doctor", "judge/doctor", true},
		{"cmd/etcdlab", "internal/exitcode", true},
		{"newstage/x", "result", false},
		{"observe/series", "observe/metrics", true},
		{"observe/series", "lab/cluster", false},
		{"observe/series", "load", false},
		{"measure/bench", "observe/series", true},
		{"observe/metrics", "measure/bench", false},
		{"observe/logscan", "load", false},
		{"observe/envinfo", "lab/cluster", false},
		{"deploy", "judge", false},
		{"lab/clustertest", "lab/cluster", true},
		{"lab/cluster", "lab/child", true},
		{"lab/kubecp", "lab/child", true},
		{"lab/child", "lab/cluster", false},
		{"lab/child", "internal/proc", true},
		{"lab/kubecp", "lab/cluster", false},
		{"lab/cluster", "lab/kubecp", false},
		{"lab/cluster", "lab/topology", false},
		{"lab/etcdbuild", "lab/kubebuild", false},
		{"lab/buildcache", "lab/etcdbuild", false},
		{"lab/buildcache", "internal/atomicfile", true},
		{"lab/kubebuild", "lab/buildcache", true},
		{"lab/member", "lab/cluster", false},
		{"lab/etcdclient", "lab/cluster", false},
		{"lab/pki", "emulate/wan", false},
		{"lab/newthing", "invalid", false},
		{"lab/clustertest", "load", false},
		{"measure/bench", "lab/clustertest", false},
		{"lab/cluster", "lab/clustertest", false},
		{"cmd/etcdlab", "lab/clustertest", false},
		{"measure/kubereal", "measure/bench", true},
		{"measure/kubereal", "lab/kubecp", true},
		{"measure/kubereal", "observe/series", false},
		{"measure/bench", "measure/kubereal", false},
		{"measure/engines", "measure/kubereal", true},
		{"measure/jobs", "measure/engines", true},
		{"measure/experiment", "measure/kubereal", false},
	} {
		bad := check(map[string][]string{tc.pkg: {tc.dep}})
		if got := len(bad) == 0; got != tc.ok {
			t.Errorf("%s -> %s: allowed=%v, want %v (%v)", tc.pkg, tc.dep, got, tc.ok, bad)
		}
	}
	// A row's max: measure/experiment may import 12 of the module's
	// packages, not 13.
	var deps []string
	for _, d := range []string{"lab/cluster", "lab/topology", "lab/cgroup", "lab/etcdbuild", "lab/etcdclient", "emulate/slowfs", "emulate/wan", "load", "observe/envinfo", "judge/bottleneck", "result", "invalid"} {
		deps = append(deps, d)
		if bad := check(map[string][]string{"measure/experiment": deps}); (len(bad) == 0) != (len(deps) <= 12) {
			t.Errorf("measure/experiment importing %d packages: %v", len(deps), bad)
		}
	}
	if bad := check(map[string][]string{"measure/experiment": append(deps, "measure/experiment/job")}); len(bad) != 1 {
		t.Errorf("measure/experiment importing 13 packages: %v", bad)
	}
}
