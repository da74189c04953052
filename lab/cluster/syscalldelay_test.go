package cluster

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
	"github.com/etcdlab/etcdlab/internal/proc"
)

// walFsync reads the member's etcd_disk_wal_fsync_duration_seconds sum
// and count from its metrics endpoint.
func walFsync(t *testing.T, url string) (sum, count float64) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "etcd_disk_wal_fsync_duration_seconds_sum":
			sum = v
		case "etcd_disk_wal_fsync_duration_seconds_count":
			count = v
		}
	}
	if count == 0 {
		t.Fatalf("%s: no WAL fsyncs", url)
	}
	return sum, count
}

// walFsyncMean puts n keys one after the other and returns the member's
// WAL fsync mean over them (_sum and _count deltas).
func walFsyncMean(t *testing.T, c *Cluster, n int) time.Duration {
	t.Helper()
	cli := client(t, c.Client())
	if err := putRetry(cli, "warm-up", "x"); err != nil {
		log, _ := os.ReadFile(c.State().Members[0].LogFile)
		t.Fatalf("%v\n%s", err, log)
	}
	url := strings.TrimSuffix(c.State().Members[0].MetricsURL, "/") + "/metrics"
	s0, n0 := walFsync(t, url)
	for i := range n {
		if err := put(cli, "k", strconv.Itoa(i)); err != nil {
			log, _ := os.ReadFile(c.State().Members[0].LogFile)
			t.Fatalf("put %d: %v\n%s", i, err, log)
		}
	}
	s1, n1 := walFsync(t, url)
	if n1-n0 < float64(n) {
		t.Fatalf("%v WAL fsyncs for %d puts", n1-n0, n)
	}
	return time.Duration((s1 - s0) / (n1 - n0) * float64(time.Second))
}

// seccompNotifyFDs counts this process's seccomp listeners.
func seccompNotifyFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); strings.Contains(l, "seccomp") {
			n++
		}
	}
	return n
}

// tmpfsBase is a base dir in memory, so that the WAL's own fsync costs
// next to nothing and the mean is the delay's.
func tmpfsBase(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "etcdlab-cluster-test")
	if err != nil {
		t.Skip("no /dev/shm:", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestSeccompFsyncDelay: a real member's WAL fsync mean, through seccomp,
// is its 2 ms target, from 0.75x to 1.5x; no mount is made; after the member
// is killed its supervisor ends, the restarted member is delayed again,
// and after Stop no listener is left in this process.
func TestSeccompFsyncDelay(t *testing.T) {
	if err := syscalldelay.Available(); err != nil {
		t.Skip(err)
	}
	base := tmpfsBase(t)
	const target = 2 * time.Millisecond
	d, _ := slowfs.ParseDelay(target.String())
	c := start(t, Options{Members: 1, BaseDir: base, FsyncDelay: d, FsyncBy: FsyncBySeccomp, FsyncWALOnly: true})
	// A preempted member thread on a shared machine adds milliseconds to
	// a mean of 50 syncs: up to three measurements, the first in bounds
	// passes; a mechanism that does not delay, or doubles the delay,
	// fails all three. (How close the mean comes to its target is
	// perf/fsyncdelay.sh's figure, not this test's.)
	check := func(when string) {
		lo, hi := target*3/4, target*3/2
		var means []time.Duration
		for range 3 {
			mean := walFsyncMean(t, c, 50)
			t.Logf("%s: WAL fsync mean %v, target %v", when, mean, target)
			if mean >= lo && mean <= hi {
				return
			}
			means = append(means, mean)
		}
		t.Errorf("%s: WAL fsync means %v, want %v to %v", when, means, lo, hi)
	}
	check("started")
	if got := slowfs.MountsOf(c.State().Members[0].PID, c.State().Members[0].DataDir); len(got) != 0 {
		t.Errorf("seccomp delay mounted %v", got)
	}
	if ops := c.opts.SlowedOps("m1"); len(ops) != 0 {
		t.Errorf("SlowedOps = %v, want none (the disk itself is not slowed)", ops)
	}

	c.delays.mu.Lock()
	sup := c.delays.sups["m1"]
	c.delays.mu.Unlock()
	if err := c.Kill("m1"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sup.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the supervisor did not end with its member")
	}
	if err := c.Restart("m1"); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, c, 0)
	check("restarted")
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if n := seccompNotifyFDs(t); n != 0 {
		t.Errorf("%d seccomp listeners left after Stop", n)
	}
}

// TestSeccompFsyncCost: with a zero delay, every WAL fsync passes through
// the supervisor, and their mean on tmpfs stays under a millisecond,
// FUSE's own floor that the mechanism is for going under. The cost itself
// (about 70 µs here) is a benchmark's figure, perf/fsyncdelay.sh: a timed
// bound near it failed under the suite's own load (170 µs with -race
// beside other packages' clusters), where nothing was wrong.
func TestSeccompFsyncCost(t *testing.T) {
	if err := syscalldelay.Available(); err != nil {
		t.Skip(err)
	}
	d, _ := slowfs.ParseDelay("0s")
	c := start(t, Options{Members: 1, BaseDir: tmpfsBase(t), FsyncDelay: d, FsyncBy: FsyncBySeccomp})
	mean := walFsyncMean(t, c, 100)
	t.Logf("WAL fsync mean %v through seccomp without delay", mean)
	if mean > time.Millisecond {
		t.Errorf("WAL fsync mean %v with no delay, want under 1 ms (FUSE's floor)", mean)
	}
	if n := c.delays.sups["m1"].Count(); n < 100 {
		t.Errorf("the supervisor saw %d syncs, want at least 100", n)
	}
}

// seccompParentEnv makes the test binary the parent TestSeccompKill9
// kills: it starts a 1-member cluster in the dir it names with a seccomp
// fsync delay, prints the member's PID and start time, and waits.
const seccompParentEnv = "ETCDLAB_CLUSTER_TEST_SECCOMP_PARENT"

func seccompParent(dir string) int {
	_ = os.Unsetenv(seccompParentEnv) // its members are members
	d, _ := slowfs.ParseDelay("1ms")
	c, err := Start(context.Background(), Options{Members: 1, BaseDir: dir, FsyncDelay: d, FsyncBy: FsyncBySeccomp})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	m := c.State().Members[0]
	fmt.Println(m.PID, m.StartTime)
	time.Sleep(time.Minute)
	return 0
}

// TestSeccompKill9: kill -9 of the process whose supervisor holds a
// member's syncs leaves no member behind (its parent-death signal; its
// filter ends with it).
func TestSeccompKill9(t *testing.T) {
	if err := syscalldelay.Available(); err != nil {
		t.Skip(err)
	}
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), seccompParentEnv+"="+tmpfsBase(t))
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		t.Fatalf("parent said %q (%v)", line, err)
	}
	pid, _ := strconv.Atoi(f[0])
	st, _ := strconv.ParseUint(f[1], 10, 64)
	m := proc.ID{PID: pid, StartTime: st}
	if !m.Alive() {
		t.Fatal("the member is not running")
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	if !m.WaitGone(10 * time.Second) {
		_ = m.Signal(syscall.SIGKILL)
		t.Fatal("the member outlived its killed parent")
	}
}
