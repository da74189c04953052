package syscalldelay_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/syscalldelay"
)

// envSyncs makes the test binary a child that fsyncs a file that many
// times and prints the median sync in nanoseconds (the median: this
// machine is shared, and a preempted thread is not the mechanism's cost).
const envSyncs = "SYSCALLDELAY_TEST_SYNCS"

func TestMain(m *testing.M) {
	if code, shim := syscalldelay.ExecIfShim(); shim {
		os.Exit(code)
	}
	if n, err := strconv.Atoi(os.Getenv(envSyncs)); err == nil {
		os.Exit(syncs(n))
	}
	os.Exit(m.Run())
}

func syncs(n int) int {
	f, err := os.CreateTemp(os.Getenv("SYSCALLDELAY_TEST_DIR"), "sync")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer f.Close()
	took := make([]time.Duration, 0, n)
	for range n {
		if _, err := f.Write([]byte("x")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		t := time.Now()
		if err := f.Sync(); err != nil {
			fmt.Fprintln(os.Stderr, "sync:", err)
			return 1
		}
		took = append(took, time.Since(t))
	}
	slices.Sort(took)
	fmt.Println(int64(took[n/2]))
	return 0
}

// medianSync runs the child through the shim with delay d (nil: supervised,
// no delay; wrap false: not supervised) and returns its median sync.
func medianSync(t *testing.T, n int, d *slowfs.Delay, wrap bool) (time.Duration, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/dev/shm", "syscalldelay-test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envSyncs+"="+strconv.Itoa(n), "SYSCALLDELAY_TEST_DIR="+dir)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	var sup *syscalldelay.Supervisor
	if !wrap {
		if err := cmd.Run(); err != nil {
			t.Fatalf("child: %v: %s", err, errb.String())
		}
	} else {
		p, err := syscalldelay.Wrap(cmd, self)
		if err != nil {
			t.Fatal(err)
		}
		err = cmd.Start()
		p.Started()
		if err != nil {
			t.Fatal(err)
		}
		l, err := p.Listener(10 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if sup, err = syscalldelay.Supervise(l, syscalldelay.Options{Delay: d}); err != nil {
			t.Fatal(err)
		}
		runtime.GC() // the listener outlives its first *os.File

		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v: %s", err, errb.String())
		}
		select {
		case <-sup.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("the supervisor did not end with its child")
		}
		if err := sup.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
	if err != nil {
		t.Fatalf("child printed %q: %v", out.String(), err)
	}
	var count int64
	if sup != nil {
		count = sup.Count()
	}
	return time.Duration(ns), count
}

func need(t *testing.T) {
	if err := syscalldelay.Available(); err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
}

// TestDelay: the child's syncs on tmpfs take their target (median), within a
// quarter plus 100 µs, at three targets from 100 µs up; and the
// supervisor saw every one of them.
func TestDelay(t *testing.T) {
	need(t)
	for _, target := range []time.Duration{100 * time.Microsecond, 250 * time.Microsecond, 2 * time.Millisecond} {
		d, err := slowfs.ParseDelay(target.String())
		if err != nil {
			t.Fatal(err)
		}
		const n = 200
		med, count := medianSync(t, n, d, true)
		t.Logf("target %v: median sync %v", target, med)
		if lo, hi := target, target+target/4+100*time.Microsecond; med < lo || med > hi {
			t.Errorf("target %v: median sync %v, want %v to %v", target, med, lo, hi)
		}
		if count < n {
			t.Errorf("target %v: supervisor notified of %d syncs, want at least %d", target, count, n)
		}
	}
}

// TestCost: without a delay the supervised child's syncs cost well under
// 0.5 ms more than unsupervised ones.
func TestCost(t *testing.T) {
	need(t)
	const n = 500
	bare, _ := medianSync(t, n, nil, false)
	supervised, _ := medianSync(t, n, nil, true)
	t.Logf("median sync on tmpfs: %v bare, %v supervised without delay", bare, supervised)
	if supervised-bare > 100*time.Microsecond {
		t.Errorf("the mechanism costs %v per sync, want under 100 µs", supervised-bare)
	}
}

// TestOnly: with Only, syncs of other files continue at once.
func TestOnly(t *testing.T) {
	need(t)
	self, _ := os.Executable()
	dir := t.TempDir()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), envSyncs+"=50", "SYSCALLDELAY_TEST_DIR="+dir)
	var out bytes.Buffer
	cmd.Stdout = &out
	p, err := syscalldelay.Wrap(cmd, self)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	p.Started()
	if err != nil {
		t.Fatal(err)
	}
	l, err := p.Listener(10 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := slowfs.ParseDelay("20ms")
	sup, err := syscalldelay.Supervise(l, syscalldelay.Options{Delay: d, Only: slowfs.WALOnly})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	ns, _ := strconv.ParseInt(strings.TrimSpace(out.String()), 10, 64)
	if time.Duration(ns) > 10*time.Millisecond {
		t.Errorf("a file outside the WAL synced in %v (median), want no delay", time.Duration(ns))
	}
}
