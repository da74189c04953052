package cluster

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// cpuSeconds is a process's user and system CPU time from /proc.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return st.CPUSeconds()
}

// TestMemberCPUBudget: a member with a 0.5-core budget uses at most 0.55
// cores (from /proc) under a load that would take more, and Stop leaves
// no cgroup (issue 24).
func TestMemberCPUBudget(t *testing.T) {
	h := cgroupsOrSkip(t)
	// Without a budget, nothing is made: a run without budgets costs
	// nothing.
	plain := start(t, Options{Members: 1})
	if g := ownGroups(t, h, plain); len(g) != 0 || plain.State().Members[0].CPUs != 0 {
		t.Fatalf("groups %v for a cluster without budgets", g)
	}
	c := start(t, Options{Members: 1, CPUs: 0.5})
	if g := ownGroups(t, h, c); len(g) != 1 {
		t.Fatalf("groups %v, want the member's budget", g)
	}
	m := c.State().Members[0]
	if m.CPUs != 0.5 {
		t.Errorf("state: budget %g", m.CPUs)
	}
	conn := c.Client()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.New(conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for ctx.Err() == nil {
				_, _ = cli.Put(ctx, "/budget/"+strconv.Itoa(i), strings.Repeat("x", 512))
				_, _ = cli.Get(ctx, "/budget/", clientv3.WithPrefix())
			}
		})
	}
	grp, err := budgetGroup(c.ctl.PID, c.dir.root, "m1", false)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the load's warm-up, not a wait for a condition
	before, began := cpuSeconds(t, m.PID), time.Now()
	st0, err := grp.CPUStat()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second) // the measured span
	used := (cpuSeconds(t, m.PID) - before) / time.Since(began).Seconds()
	st1, err := grp.CPUStat()
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	if used > 0.55 {
		t.Errorf("the member used %.2f cores with a 0.5-core budget", used)
	}
	// The budget held the member back: it used most of it, or (on a
	// machine too busy to give it half a core) the quota still throttled
	// it in periods when it could have had more.
	throttled := st1.Throttled - st0.Throttled
	if used < 0.3 && throttled == 0 {
		t.Errorf("the member used %.2f cores and was never throttled: the load did not reach the budget, the test shows nothing", used)
	}
	t.Logf("member used %.2f cores of its 0.5-core budget, throttled in %d of %d periods", used, throttled, st1.Periods-st0.Periods)
	// A restarted member is a new process: it goes back into its budget.
	if err := c.Kill("m1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart("m1"); err != nil {
		t.Fatal(err)
	}
	g, err := budgetGroup(c.ctl.PID, c.dir.root, "m1", false)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := g.PIDs()
	if pid := c.State().Members[0].PID; err != nil || !slices.Contains(pids, pid) {
		t.Errorf("restarted member %d not in its budget's group: %v %v", pid, pids, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if g := ownGroups(t, h, c); len(g) != 0 {
		t.Errorf("groups left after Stop: %v", g)
	}
}

// TestMemberMemoryLimit: a member with a memory limit runs in its budget
// group with that limit in the memory hierarchy (v1 memory.limit_in_bytes,
// v2 memory.max), and the state says so.
func TestMemberMemoryLimit(t *testing.T) {
	t.Parallel()
	h := cgroupsOrSkip(t)
	if h.Layout().Memory == "" {
		t.Skip("no memory controller")
	}
	const limit = 256 << 20
	c := start(t, Options{Members: 1, Memory: limit})
	m := c.State().Members[0]
	if m.MemoryBytes != limit || m.CPUs != 0 {
		t.Errorf("state: memory %d, cpus %g", m.MemoryBytes, m.CPUs)
	}
	g, err := budgetGroup(c.ctl.PID, c.dir.root, "m1", false)
	if err != nil {
		t.Fatal(err)
	}
	file := "memory.limit_in_bytes"
	if h.Version() == cgroup.V2 {
		file = "memory.max"
	}
	dir := filepath.Join(h.Layout().Memory, g.Name())
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(limit) {
		t.Fatalf("%s/%s: %q %v", dir, file, b, err)
	}
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil || !slices.Contains(strings.Fields(string(procs)), strconv.Itoa(m.PID)) {
		t.Errorf("member %d not in %s: %q %v", m.PID, dir, procs, err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s left after Stop: %v", dir, err)
	}
}
