package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cgroup"
)

// cgroupsOrSkip opens this process's cgroup hierarchy, or skips the test
// with the reason the lab cannot write cgroups here.
func cgroupsOrSkip(t *testing.T) cgroup.Hierarchy {
	t.Helper()
	h, err := cgroup.Open(0)
	if cgroup.IsUnavailable(err) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// ownGroups lists the cgroups of cluster c in h.
func ownGroups(t *testing.T, h cgroup.Hierarchy, c *Cluster) []string {
	t.Helper()
	ents, err := os.ReadDir(h.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), cgroup.GroupName(c.ctl.PID, cgroupPrefix(c.DataDir()))) {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestCPULimitFault limits the leader of a real cluster to 0.05 CPUs from
// outside (as `etcdlab cluster fault cpulimit` does) while writes and
// reads run: the group throttles it, cpuunlimit gives it back to the
// controller's cgroup and removes the group; a limit left on when the
// cluster stops leaves no group behind.
func TestCPULimitFault(t *testing.T) {
	t.Parallel()
	h := cgroupsOrSkip(t)
	c := start(t, Options{Members: 3})
	ctx := context.Background()
	st := c.State()
	el, ok, err := c.WatchElection(ctx, 2*time.Second)
	if err != nil || !ok {
		t.Fatalf("WatchElection: ok %v, %v", ok, err)
	}
	leader := el.Old().Name
	el.Close()
	m, err := stateMember(st, leader)
	if err != nil {
		t.Fatal(err)
	}
	limit, err := LookupFault(FaultCPULimit)
	if err != nil {
		t.Fatal(err)
	}
	unlimit, err := LookupFault(FaultCPUUnlimit)
	if err != nil {
		t.Fatal(err)
	}

	for _, bad := range []string{"0", "-1", "many", "NaN"} {
		if _, err := limit.Inject(ctx, st, Request{Args: []string{leader, bad}}); !invalid.Is(err) {
			t.Errorf("cpulimit %s %s: %v, want invalid input", leader, bad, err)
		}
	}
	if _, err := limit.Inject(ctx, st, Request{Args: []string{"m9"}}); !invalid.Is(err) {
		t.Errorf("cpulimit m9: %v, want invalid input", err)
	}

	done, err := limit.Inject(ctx, st, Request{Args: []string{leader, "0.05"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(done)
	g := h.Group(st.Controller.PID, cgroupPrefix(st.DataDir)+"cpulimit-"+leader)
	if pids, err := g.PIDs(); err != nil || !slices.Contains(pids, m.PID) {
		t.Fatalf("%s holds %v (%v), want the leader's pid %d", g.Dir(), pids, err, m.PID)
	}
	before, err := g.CPUStat()
	if err != nil {
		t.Fatal(err)
	}
	cli := client(t, c.Client())
	deadline := time.Now().Add(30 * time.Second)
	var after cgroup.CPUStat
	for i := 0; after.Throttled < before.Throttled+3; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("the leader was throttled in %d periods (of %d) in 30 s", after.Throttled-before.Throttled, after.Periods-before.Periods)
		}
		k := "/cpulimit/" + strconv.Itoa(i%10)
		if err := putRetry(cli, k, strconv.Itoa(i)); err == nil {
			_ = get(t, cli, k)
		}
		if after, err = g.CPUStat(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("leader %s throttled in %d of %d periods (%v)", leader, after.Throttled-before.Throttled, after.Periods-before.Periods, after.ThrottledTime-before.ThrottledTime)

	// Undone in process, as a timeline undoes it.
	if err := unlimit.Apply(c, Request{Args: []string{leader}}); err != nil {
		t.Fatal(err)
	}
	if g.Exists() {
		t.Fatalf("%s left after cpuunlimit", g.Dir())
	}
	if home, err := os.ReadFile(filepath.Join(h.Layout().CPU, "cgroup.procs")); err != nil || !slices.Contains(strings.Fields(string(home)), strconv.Itoa(m.PID)) {
		t.Errorf("the leader (pid %d) is not back in %s (%v)", m.PID, h.Layout().CPU, err)
	}
	if got := c.Counts().Faults; got[FaultCPUUnlimit] != 1 || got[FaultCPULimit] != 0 {
		t.Errorf("counted %v: want cpuunlimit once, and not the cpulimit injected from outside", got)
	}
	if done, err := unlimit.Inject(ctx, st, Request{Args: []string{leader}}); err != nil || !slices.Equal(done, []string{leader + " had no CPU limit"}) {
		t.Errorf("cpuunlimit again: %q, %v", done, err)
	}

	// Left on when the cluster stops: Stop removes it.
	if err := limit.Apply(c, Request{Args: []string{"m2"}}); err != nil {
		t.Fatal(err)
	}
	if got := ownGroups(t, h, c); len(got) != 1 {
		t.Fatalf("groups after cpulimit m2: %v", got)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := ownGroups(t, h, c); len(got) != 0 {
		t.Fatalf("groups left after Stop: %v", got)
	}
}

// TestStartSweepsCgroups starts a cluster beside a group whose owner is
// gone (as a killed etcdlab leaves it): Start removes it.
func TestStartSweepsCgroups(t *testing.T) {
	t.Parallel()
	h := cgroupsOrSkip(t)
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	left, err := h.Create(gone.Process.Pid, "cpulimit-m1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = left.Remove() })
	start(t, Options{Members: 1})
	if left.Exists() {
		t.Fatalf("%s, whose owner pid %d is gone, left after Start", left.Dir(), gone.Process.Pid)
	}
}
