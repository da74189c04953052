package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
)

// TestLoadBudget: `bench --load-cpus 0.1` without --endpoints sends its
// load from one agent process in the group etcdlab-PID-load: under a
// saturating load (the quota throttles it) that process uses at most
// 0.15 cores, measured from /proc; kill -9 of bench leaves nothing once
// the next etcdlab has run (its sweep), and a run that ends leaves no
// group and records load_cpus (issue 24). The budget is 0.1, not more,
// because on this 2-core machine a member saturates first: at 10,000
// puts/s it takes 1.5 cores while the load takes 0.25.
func TestLoadBudget(t *testing.T) {
	t.Parallel()
	h, err := cgroup.Open(0)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	groups := func(owner int) []string {
		g, _ := filepath.Glob(filepath.Join(h.Dir(), cgroup.GroupName(owner, "*")))
		return g
	}

	// A saturating load, killed with SIGKILL while it runs.
	a := exec.Command(binary, "bench", "--load-cpus", "0.1", "--members", "1", "--conns", "10", "--clients", "300",
		"--duration", "60s", "--quiet", "put", "--val-size", "16")
	a.Dir = dir
	var aErr bytes.Buffer
	a.Stderr = &aErr
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = a.Wait(); close(done) }()
	t.Cleanup(func() { _ = a.Process.Kill(); <-done })
	g := h.Group(a.Process.Pid, bench.LoadGroup)
	var agent int
	clustertest.WaitFor(t, 30*time.Second, "the agent in "+g.Name(), func() bool {
		pids, _ := g.PIDs()
		if len(pids) == 1 {
			agent = pids[0]
		}
		select {
		case <-done:
			t.Fatalf("bench exited: %s", aErr.String())
		default:
		}
		return agent != 0
	})
	t.Cleanup(func() { _ = syscall.Kill(agent, syscall.SIGKILL) })
	// Saturated: the quota throttles it.
	before, err := g.CPUStat()
	if err != nil {
		t.Fatal(err)
	}
	clustertest.WaitFor(t, 20*time.Second, "the load throttled by its quota", func() bool {
		s, err := g.CPUStat()
		return err == nil && s.Throttled >= before.Throttled+5
	})
	t0, ticks0 := time.Now(), procTicks(t, agent)
	var stat cgroup.CPUStat
	// At least 3 s, and up to 45 s for 10 more throttled periods. On a
	// machine busy enough to starve the load of even a tenth of a core (a
	// run beside builds and experiments: seen at a load average of 10),
	// the quota bites seldom or not at all; the load then uses less than
	// its budget anyway, and what the test asserts, the cores it used,
	// holds either way (the quota was seen biting above).
	for end := t0.Add(45 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		stat, _ = g.CPUStat()
		if time.Since(t0) >= 3*time.Second && (stat.Throttled >= before.Throttled+15 || time.Now().After(end)) {
			break
		}
	}
	cores := float64(procTicks(t, agent)-ticks0) / 100 / time.Since(t0).Seconds() // USER_HZ 100
	t.Logf("load process at a 0.1-core budget: %.3f cores from /proc, throttled in %d of %d periods", cores, stat.Throttled-before.Throttled, stat.Periods-before.Periods)
	if cores > 0.15 {
		t.Errorf("the load process used %.3f cores under a 0.1-core budget", cores)
	}
	if err := a.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	// The agent, interrupted by its parent's death, would delete its keys
	// from a cluster that died with bench until its timeouts; the group
	// is swept whether it still runs or not. Leave nothing running.
	_ = syscall.Kill(agent, syscall.SIGKILL)
	clustertest.WaitFor(t, 10*time.Second, "the agent's end", func() bool { return !(proc.ID{PID: agent}).Alive() })

	// The next run: it sweeps the dead run's group, measures, records the
	// budget and leaves no group of its own.
	b := exec.Command(binary, "bench", "--load-cpus", "0.1", "--members", "1", "--conns", "4", "--clients", "50",
		"--quiet", "put", "--total", "3000", "--val-size", "16", "-o", "json")
	b.Dir = dir
	var bOut, bErr bytes.Buffer
	b.Stdout, b.Stderr = &bOut, &bErr
	if err := b.Run(); err != nil {
		t.Fatalf("the next run: %v\n%s", err, bErr.String())
	}
	var doc result.Document
	if err := json.Unmarshal(bOut.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, bOut.String())
	}
	if doc.Environment.LoadCPUs != 0.1 || len(doc.Runs) != 1 || doc.Runs[0].Requests != 3000 || !doc.Environment.LocalCluster {
		t.Errorf("load_cpus %g, local %v, runs %d", doc.Environment.LoadCPUs, doc.Environment.LocalCluster, len(doc.Runs))
	}
	if c := doc.Runs[0].LoadCPUCores; c <= 0 || c > 0.15 {
		t.Errorf("the run's load_cpu_cores %.3f under a 0.1-core budget", c)
	}
	if !strings.Contains(strings.Join(doc.Notes, "\n"), "the load ran in a process of its own under a CPU budget of 0.1 cores") {
		t.Errorf("notes %q", doc.Notes)
	}
	if left := append(groups(a.Process.Pid), groups(b.Process.Pid)...); len(left) > 0 {
		t.Fatalf("cgroups left after kill -9 and the next run: %v", left)
	}
}

// procTicks is a process's user plus system time in clock ticks.
func procTicks(t *testing.T, pid int) int64 {
	t.Helper()
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return int64(st.UTime + st.STime)
}

// TestExperimentLoadBudget: a local setup's load_cpus runs its bench cells
// through one load process under the budget, against the cell's cluster
// with its leader placed; the cell records load_cpus, the load's CPU and
// who led, and no group is left (issue 24). The second cell is a bench
// replay, whose engine the load process must have too (issue 34).
func TestExperimentLoadBudget(t *testing.T) {
	t.Parallel()
	h, err := cgroup.Open(0)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	spec := `name: tiny-load
setups:
  - {name: one, members: 3, storage: tmpfs, load_cpus: 0.2, leader: m2}
workloads:
  - name: put
    bench: --conns=4 --clients=40 put --total=2000 --key-size=8 --val-size=16
  - name: replay
    bench: --duration=3s replay sample:kube
`
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "experiment", "run", file, "--out", filepath.Join(dir, "out"), "--quiet")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc result.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Experiment.Cells[0]
	if c.Status != result.CellOK || c.Environment.LoadCPUs != 0.2 || !c.Environment.LocalCluster || len(c.Runs) != 1 {
		t.Fatalf("cell %s %s, load_cpus %g, local %v, %d runs", c.Status, c.Error, c.Environment.LoadCPUs, c.Environment.LocalCluster, len(c.Runs))
	}
	r := c.Runs[0]
	if r.Requests != 2000 || r.LoadCPUCores <= 0 || r.LoadCPUCores > 0.25 || r.Leader != "m2" {
		t.Errorf("run: %d requests, load %.3f cores, leader %q (%s)", r.Requests, r.LoadCPUCores, r.Leader, r.LeaderMoved)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "the load ran in a process of its own under a CPU budget of 0.2 cores") {
		t.Errorf("notes %q", c.Notes)
	}
	// bench replay, an engine outside bench, runs in the budgeted
	// process too (the agent's engines are the CLI's).
	if rc := doc.Experiment.Cells[1]; rc.Status != result.CellOK || len(rc.Runs) != 1 || rc.Runs[0].Replay == nil || len(rc.Runs[0].Replay.Rows) == 0 {
		t.Errorf("replay cell %s %s, %d runs", rc.Status, rc.Error, len(rc.Runs))
	}
	if g, _ := filepath.Glob(filepath.Join(h.Dir(), cgroup.GroupName(cmd.Process.Pid, "*"))); len(g) > 0 {
		t.Errorf("cgroups left: %v", g)
	}
}

// TestLiveLoadBudget: against --endpoints, `bench --load-cpus 0.1` puts
// its own process in etcdlab-PID-load, starts nothing, uses at most 0.15
// cores under a saturating load (its own measure) and takes the group
// away when it ends (issue 24).
func TestLiveLoadBudget(t *testing.T) {
	t.Parallel()
	h, err := cgroup.Open(0)
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	up := startUp(t, dir, "--members", "1")
	st := waitState(t, filepath.Join(dir, cluster.DefaultStateFile), up.exitedStderr)
	t.Cleanup(func() {
		_, _ = cli(t, dir, "cluster", "down")
		_ = up.wait(t)
	})
	cmd := exec.Command(binary, "bench", "--endpoints", strings.Join(st.Client().Endpoints, ","), "--load-cpus", "0.1",
		"--conns", "10", "--clients", "300", "--duration", "3s", "--quiet", "put", "--val-size", "16", "-o", "json")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	g := h.Group(cmd.Process.Pid, bench.LoadGroup)
	in := false
	clustertest.WaitFor(t, 20*time.Second, "bench in "+g.Name(), func() bool {
		pids, _ := g.PIDs()
		in = len(pids) == 1 && pids[0] == cmd.Process.Pid
		return in || len(done) > 0
	})
	if err := <-done; err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if !in {
		t.Errorf("bench was not seen alone in %s", g.Name())
	}
	var doc result.Document
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if doc.Environment.LoadCPUs != 0.1 || doc.Environment.LocalCluster || len(doc.Runs) != 1 {
		t.Fatalf("load_cpus %g, local %v, %d runs", doc.Environment.LoadCPUs, doc.Environment.LocalCluster, len(doc.Runs))
	}
	if c := doc.Runs[0].LoadCPUCores; c <= 0 || c > 0.15 {
		t.Errorf("load_cpu_cores %.3f under a 0.1-core budget", c)
	}
	if g.Exists() {
		t.Errorf("%s left", g.Dir())
	}
}
