package cgroup

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// childEnv makes the test binary a child that makes a group, puts a
// sleeping process in it, prints that process's pid, and waits to be
// killed (TestSweepAfterKill).
const childEnv = "ETCDLAB_CGROUP_TEST_CHILD"

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		if err := child(name); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func child(name string) error {
	h, err := Open(0)
	if err != nil {
		return err
	}
	g, err := h.Create(os.Getpid(), name)
	if err != nil {
		return err
	}
	sleep := exec.Command("sleep", "300")
	if err := sleep.Start(); err != nil {
		return err
	}
	if err := g.Add(sleep.Process.Pid); err != nil {
		return err
	}
	_ = g.SetMemory(256 << 20) // where it can: a directory in one more hierarchy (v1)
	fmt.Println(sleep.Process.Pid)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until killed
	return nil
}

// openOrSkip opens this process's hierarchy, or skips the test with the reason
// cgroups cannot be written here.
func openOrSkip(t *testing.T) Hierarchy {
	t.Helper()
	h, err := Open(0)
	var u *UnavailableError
	if errors.As(err, &u) {
		t.Skip(u.Reason)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// start starts a process that is killed and reaped at cleanup.
func start(t *testing.T, name string, args ...string) int {
	t.Helper()
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}

// cpuTicks is a process's user plus system time in clock ticks.
func cpuTicks(t *testing.T, pid int) int64 {
	t.Helper()
	st, err := proc.ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return int64(st.UTime + st.STime)
}

// inHome reports whether pid is in the cgroup h was opened for.
func inHome(t *testing.T, h Hierarchy, pid int) bool {
	t.Helper()
	pids, err := readPIDs(h.Layout().CPU)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(pids, pid)
}

// TestCPULimit limits a busy loop to 0.2 cores: it uses well below one
// core, cpu.stat counts throttled periods, and Remove gives the process
// back to this process's cgroup and removes the group.
func TestCPULimit(t *testing.T) {
	t.Parallel()
	h := openOrSkip(t)
	g, err := h.Create(os.Getpid(), "test-cpulimit")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Remove() })
	if !strings.HasPrefix(g.Dir(), h.Layout().CPU) || !g.Exists() {
		t.Fatalf("group %s is not under this process's cgroup %s", g.Dir(), h.Layout().CPU)
	}
	pid := start(t, "sh", "-c", "while :; do :; done")
	if err := g.SetCPU(0.2); err != nil {
		t.Fatal(err)
	}
	if err := g.Add(pid); err != nil {
		t.Fatal(err)
	}
	if pids, err := g.PIDs(); err != nil || !slices.Contains(pids, pid) {
		t.Fatalf("group holds %v (%v), want %d", pids, err, pid)
	}
	before, err := g.CPUStat()
	if err != nil {
		t.Fatal(err)
	}
	t0, ticks0 := time.Now(), cpuTicks(t, pid)
	// Measure over at least a second and until a few periods were throttled.
	var after CPUStat
	for time.Since(t0) < time.Second || after.Throttled < before.Throttled+5 {
		if time.Since(t0) > 20*time.Second {
			t.Fatalf("throttled periods %d -> %d in 20 s", before.Throttled, after.Throttled)
		}
		time.Sleep(50 * time.Millisecond)
		if after, err = g.CPUStat(); err != nil {
			t.Fatal(err)
		}
	}
	cores := float64(cpuTicks(t, pid)-ticks0) / 100 / time.Since(t0).Seconds() // USER_HZ is 100
	t.Logf("busy loop at 0.2 cores: %.2f cores, throttled %d of %d periods (%v)", cores, after.Throttled-before.Throttled, after.Periods-before.Periods, after.ThrottledTime-before.ThrottledTime)
	if cores > 0.35 {
		t.Errorf("the busy loop used %.2f cores under a 0.2-core limit", cores)
	}
	if after.ThrottledTime <= before.ThrottledTime {
		t.Errorf("throttled time did not grow: %v -> %v", before.ThrottledTime, after.ThrottledTime)
	}
	if err := g.SetCPU(0); err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if g.Exists() {
		t.Fatalf("%s is still there", g.Dir())
	}
	if !inHome(t, h, pid) {
		t.Fatalf("process %d was not moved back to %s", pid, h.Layout().CPU)
	}
	if err := g.Remove(); err != nil {
		t.Fatalf("removing a removed group: %v", err)
	}
}

// TestSetCPURejects holds SetCPU to limits the kernel takes.
func TestSetCPURejects(t *testing.T) {
	t.Parallel()
	h := openOrSkip(t)
	g, err := h.Create(os.Getpid(), "test-rejects")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Remove() })
	for _, cores := range []float64{-1, 0.001} {
		if err := g.SetCPU(cores); err == nil {
			t.Errorf("SetCPU(%v): no error", cores)
		}
	}
}

// TestSweepAfterKill kills the owner of a group with SIGKILL: Sweep moves
// the process it left in the group to this process's cgroup and removes
// the group (in every hierarchy it had a directory in), and leaves the
// group of a live owner alone.
func TestSweepAfterKill(t *testing.T) {
	t.Parallel()
	h := openOrSkip(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"=test-sweep")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	sleep, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(sleep, syscall.SIGKILL) })
	left := h.Group(cmd.Process.Pid, "test-sweep")
	t.Cleanup(func() { _ = left.Remove() })
	if !left.Exists() {
		t.Fatalf("the child made no %s", left.Dir())
	}
	live, err := h.Create(os.Getpid(), "test-sweep-live")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = live.Remove() })

	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	removed, err := h.Sweep()
	if err != nil {
		// Sweep is machine-wide: another dead owner's group whose last
		// process is a zombie nobody reaped yet stays busy. Only this
		// test's group must go (checked below).
		t.Logf("sweep: %v", err)
	}
	t.Logf("swept %v", removed)
	for _, p := range h.places() {
		if exists(left.dirIn(p)) {
			t.Fatalf("%s is left after the sweep", left.dirIn(p))
		}
	}
	if !inHome(t, h, sleep) {
		t.Errorf("process %d, left in the group, was not moved to %s", sleep, h.Layout().CPU)
	}
	if !live.Exists() {
		t.Errorf("the sweep removed %s, whose owner runs", live.Dir())
	}
}

// TestRemoveOwned removes a process's groups by name prefix, and no
// other.
func TestRemoveOwned(t *testing.T) {
	t.Parallel()
	h := openOrSkip(t)
	var gs []Group
	for _, n := range []string{"test-owned-a-1", "test-owned-a-2", "test-owned-b"} {
		g, err := h.Create(os.Getpid(), n)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Remove() })
		gs = append(gs, g)
	}
	removed, err := h.RemoveOwned(os.Getpid(), "test-owned-a-")
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 2 || gs[0].Exists() || gs[1].Exists() || !gs[2].Exists() {
		t.Fatalf("removed %v; exists: %v %v %v", removed, gs[0].Exists(), gs[1].Exists(), gs[2].Exists())
	}
}

// TestCPUSetAndMemory pins a process to one CPU and limits its memory, in
// the hierarchies this machine has (in v1 the cpuset and memory
// controllers' own), and Remove gives it back to this process's cgroups.
func TestCPUSetAndMemory(t *testing.T) {
	t.Parallel()
	h := openOrSkip(t)
	g, err := h.Create(os.Getpid(), "test-cpuset-memory")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = g.Remove() })
	pid := start(t, "sleep", "60")
	if err := g.Add(pid); err != nil {
		t.Fatal(err)
	}
	if err := g.SetCPUSet("0"); err != nil {
		t.Fatal(err)
	}
	if err := g.SetMemory(256 << 20); err != nil {
		t.Fatal(err)
	}
	self := procCgroups(t, os.Getpid())
	got := procCgroups(t, pid)
	for _, ctrl := range []string{"cpu", "cpuset", "memory"} {
		if !strings.HasSuffix(got[ctrl], "/"+g.Name()) {
			t.Errorf("%s cgroup of the process: %s, want the group %s", ctrl, got[ctrl], g.Name())
		}
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Cpus_allowed_list:\t0\n") {
		t.Errorf("the process may run on %q, want CPU 0 only", line(string(b), "Cpus_allowed_list"))
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if back := procCgroups(t, pid); back["cpu"] != self["cpu"] || back["cpuset"] != self["cpuset"] || back["memory"] != self["memory"] {
		t.Errorf("after Remove the process is in %v, want %v", back, self)
	}
	for _, p := range h.places() {
		if exists(g.dirIn(p)) {
			t.Errorf("%s left", g.dirIn(p))
		}
	}
}

// procCgroups maps a process's controllers (v1) or "cpu", "cpuset" and
// "memory" (v2) to its cgroup paths.
func procCgroups(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := parseCgroupFile(string(b))
	if _, v1 := m["cpu"]; !v1 {
		for _, c := range []string{"cpu", "cpuset", "memory"} {
			m[c] = m[""]
		}
	}
	return m
}

// line is the line of text that starts with key.
func line(text, key string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, key) {
			return l
		}
	}
	return ""
}
