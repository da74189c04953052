package slowfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"golang.org/x/sys/unix"
)

// nsThread is an OS thread that a test moves into namespaces and runs work
// on, as lab/cluster's spawner does. It ends, and the kernel forgets its
// namespaces, when exit is called or the test ends.
type nsThread struct {
	reqs chan func()
	quit chan struct{}
	tid  int
}

func newThread(t *testing.T) *nsThread {
	t.Helper()
	th := &nsThread{reqs: make(chan func()), quit: make(chan struct{})}
	tid := make(chan int)
	proc.GoLocked(func() {
		tid <- unix.Gettid()
		for {
			select {
			case f := <-th.reqs:
				f()
			case <-th.quit:
				return
			}
		}
	})
	th.tid = <-tid
	t.Cleanup(th.exit)
	return th
}

// do runs f on the thread.
func (th *nsThread) do(f func() error) error {
	done := make(chan error, 1)
	select {
	case th.reqs <- func() { done <- f() }:
		return <-done
	case <-th.quit:
		return errors.New("thread has exited")
	}
}

// exit ends the thread (idempotent).
func (th *nsThread) exit() {
	select {
	case <-th.quit:
	default:
		close(th.quit)
	}
}

// mounts lists the slowfs mounts under dir that the thread sees.
func (th *nsThread) mounts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	if err := th.do(func() error { out = mountsIn("/proc/thread-self/mountinfo", dir); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// timedSync writes path and times its fdatasync, the fastest of three. It
// uses raw system calls: in the mount's namespace this process must not
// open a file of its own mount with package os (see Options.Run).
func timedSync(path string) (time.Duration, error) {
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	best := time.Hour
	for range 3 {
		if _, err := unix.Pwrite(fd, []byte("data"), 0); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := unix.Fdatasync(fd); err != nil {
			return 0, err
		}
		best = min(best, time.Since(t0))
	}
	return best, nil
}

// TestPrivateNamespaceMount mounts a slow file system over its own backing
// dir in a private mount namespace: the namespace's thread gets slow WAL
// syncs through it, while this process's namespace has no mount and shows
// the real files in the same dir.
func TestPrivateNamespaceMount(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	th := newThread(t)
	if err := th.do(EnterPrivateNamespace); err != nil {
		t.Fatal(err)
	}
	d, _ := ParseDelay("25ms")
	m, err := MountDir(Options{Backing: dir, Mountpoint: dir, Delay: d, Only: WALOnly, Run: th.do})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Unmount() }()
	if got := MountsUnder(dir); len(got) != 0 {
		t.Fatalf("mount visible outside its namespace: %v", got)
	}
	if got := th.mounts(t, dir); !slices.Equal(got, []string{dir}) {
		t.Fatalf("namespace's mounts %v, want [%s]", got, dir)
	}
	var slow, fast time.Duration
	err = th.do(func() (err error) {
		for _, d := range []string{"member", "member/wal"} {
			if err := unix.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				return err
			}
		}
		if slow, err = timedSync(filepath.Join(dir, "member", "wal", "0.wal")); err != nil {
			return err
		}
		fast, err = timedSync(filepath.Join(dir, "db"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("in the namespace: WAL fdatasync %v, other %v", slow, fast)
	if slow < 25*time.Millisecond || slow > 200*time.Millisecond {
		t.Errorf("WAL fdatasync took %v, want about 25 ms", slow)
	}
	if fast > 20*time.Millisecond {
		t.Errorf("unfiltered file was slowed: %v", fast)
	}
	// Outside, the same path is the real directory, not a mount.
	if b, err := os.ReadFile(filepath.Join(dir, "member", "wal", "0.wal")); err != nil || string(b) != "data" {
		t.Fatalf("real file outside the namespace: %q %v", b, err)
	}
	outside, err := timedSync(filepath.Join(dir, "member", "wal", "1.wal"))
	if err != nil || outside > 20*time.Millisecond {
		t.Errorf("WAL fdatasync outside the namespace: %v %v (not slowed)", outside, err)
	}
	if err := m.Unmount(); err != nil {
		t.Fatal(err)
	}
	if got := th.mounts(t, dir); len(got) != 0 {
		t.Fatalf("still mounted in the namespace after Unmount: %v", got)
	}
}

// TestMountEndsWithNamespace lets the namespace's only thread exit without
// unmounting, as a kill -9 does: the kernel removes the mount with the
// namespace and ends the FUSE connection, so the server stops by itself.
func TestMountEndsWithNamespace(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	th := newThread(t)
	if err := th.do(EnterPrivateNamespace); err != nil {
		t.Fatal(err)
	}
	m, err := MountDir(Options{Backing: dir, Mountpoint: dir, Run: th.do})
	if err != nil {
		t.Fatal(err)
	}
	if got := th.mounts(t, dir); len(got) != 1 {
		t.Fatalf("namespace's mounts: %v", got)
	}
	th.exit()
	served := make(chan struct{})
	go func() { m.server.Wait(); close(served) }()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("FUSE server still serving 5 s after its namespace's last thread exited")
	}
	if err := m.Unmount(); err == nil {
		t.Error("Unmount succeeded without the namespace's thread")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
}

// TestRecursiveMountRefused: a mount that covers its backing dir in the
// namespace where the server works would send every loopback operation
// back through itself. It is refused, with or without Run.
func TestRecursiveMountRefused(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	th := newThread(t) // in this process's namespace
	for _, tt := range []struct {
		name                string
		backing, mountpoint string
		run                 func(func() error) error
	}{
		{"same dir", dir, dir, nil},
		{"mount point inside the backing dir", dir, sub, nil},
		{"backing dir inside the mount point", sub, dir, nil},
		{"same dir, Run in this namespace", dir, dir, th.do},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := MountDir(Options{Backing: tt.backing, Mountpoint: tt.mountpoint, Run: tt.run})
			if err == nil {
				_ = m.Unmount()
				t.Fatal("mounted")
			}
			if !strings.Contains(err.Error(), "needs a private mount namespace") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error: %v", err)
			}
			if got := MountsUnder(dir); len(got) != 0 {
				t.Fatalf("mounts left: %v", got)
			}
		})
	}
}

// TestPrivateNamespaceDoesNotPropagate checks the case of most hosts, where
// the mounts (systemd makes / shared) propagate to their peers. A stand-in
// host namespace gets a shared tmpfs; a thread that joins it and enters a
// private namespace mounts under that tmpfs: the stand-in must not see the
// mount.
func TestPrivateNamespaceDoesNotPropagate(t *testing.T) {
	t.Parallel()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	shared, backing := t.TempDir(), t.TempDir()
	host := newThread(t)
	err := host.do(func() error {
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			return err
		}
		if err := unix.Mount("tmpfs", shared, "tmpfs", 0, "size=1m"); err != nil {
			return err
		}
		return unix.Mount("", shared, "", unix.MS_SHARED, "")
	})
	if err != nil {
		t.Fatal(err)
	}
	th := newThread(t)
	err = th.do(func() error {
		// setns into a mount namespace needs a thread with its own root
		// and working directory.
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			return err
		}
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/task/%d/ns/mnt", os.Getpid(), host.tid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if err := unix.Setns(fd, unix.CLONE_NEWNS); err != nil {
			return fmt.Errorf("join the stand-in host namespace: %w", err)
		}
		if err := EnterPrivateNamespace(); err != nil {
			return err
		}
		return os.Mkdir(filepath.Join(shared, "x"), 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(shared, "x")
	m, err := MountDir(Options{Backing: backing, Mountpoint: mp, Run: th.do})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Unmount() }()
	if got := th.mounts(t, shared); !slices.Equal(got, []string{mp}) {
		t.Fatalf("private namespace's mounts %v, want [%s]", got, mp)
	}
	if got := host.mounts(t, shared); len(got) != 0 {
		t.Fatalf("the mount propagated to the host namespace: %v", got)
	}
	// The other way round, a mount made on the host still reaches the
	// private namespace (a slave, not a private copy).
	hostMount := filepath.Join(shared, "from-host")
	err = host.do(func() error {
		if err := os.Mkdir(hostMount, 0o755); err != nil {
			return err
		}
		return unix.Mount("tmpfs", hostMount, "tmpfs", 0, "size=1m")
	})
	if err != nil {
		t.Fatal(err)
	}
	var seen bool
	_ = th.do(func() error {
		b, err := os.ReadFile("/proc/thread-self/mountinfo")
		seen = err == nil && strings.Contains(string(b), " "+hostMount+" ")
		return nil
	})
	if !seen {
		t.Error("a mount made on the host did not reach the private namespace")
	}
}
