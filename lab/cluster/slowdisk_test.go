package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/lab/child"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// assertPrivateMount checks that member m runs on a slow disk that only it
// (and the cluster's spawning thread) sees: its mount namespace has the
// slowfs mount over its data dir, this process's namespace has no slowfs
// mount under base, and from here the data dir holds the member's real
// files.
func assertPrivateMount(t *testing.T, m MemberState, base string) {
	t.Helper()
	if got := slowfs.MountsUnder(base); len(got) != 0 {
		t.Errorf("slow-disk mounts visible outside the cluster: %v", got)
	}
	if got := slowfs.MountsOf(m.PID, m.DataDir); !slices.Equal(got, []string{m.DataDir}) {
		t.Errorf("member %s (pid %d) sees slow-disk mounts %v, want [%s]", m.Name, m.PID, got, m.DataDir)
	}
	if _, err := os.Stat(filepath.Join(m.DataDir, "member", "wal")); err != nil {
		t.Errorf("member %s's WAL is not visible outside its mount: %v", m.Name, err)
	}
}

// assertSlowPuts times 10 puts after a warm-up one: each must pay at least
// the fsync delay.
func assertSlowPuts(t *testing.T, cli *clientv3.Client, delay time.Duration) {
	t.Helper()
	if err := putRetry(cli, "warm-up", "x"); err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for i := range 10 {
		t0 := time.Now()
		if err := put(cli, "k", string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
		total += time.Since(t0)
	}
	if avg := total / 10; avg < delay {
		t.Fatalf("average put %v with a %v fsync delay", avg, delay)
	} else {
		t.Logf("average put %v with a %v fsync delay", avg, delay)
	}
}

// TestSlowDiskCluster runs a member on a slow file system: every put pays
// the fsync delay, the mount lives only in the members' mount namespace, a
// restarted member is slowed again, and Stop leaves no mount and no
// directory.
func TestSlowDiskCluster(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	d, _ := slowfs.ParseDelay("15ms")
	c := start(t, Options{Members: 1, BaseDir: base, FsyncDelay: d})
	cli := client(t, c.Client())
	assertSlowPuts(t, cli, 15*time.Millisecond)
	assertPrivateMount(t, c.State().Members[0], base)
	assertChildSeesMount(t, c)

	if err := c.Kill("m1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Restart("m1"); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, c, 0)
	assertSlowPuts(t, cli, 15*time.Millisecond)
	assertPrivateMount(t, c.State().Members[0], base)

	ids, dir := pids(c), c.DataDir()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, ids, dir)
	if m := slowfs.MountsUnder(base); len(m) != 0 {
		t.Fatalf("mounts left: %v", m)
	}
	if _, err := c.StartChild(child.Spec{Name: "late", Cmd: exec.Command("true")}); err == nil {
		t.Error("StartChild after Stop started a child")
	}
}

// assertChildSeesMount: a child started with StartChild is in the
// cluster's mount namespace, where the first member's slow disk covers its
// dir (the disk job's child etcdlab measures it there).
func assertChildSeesMount(t *testing.T, c *Cluster) {
	t.Helper()
	m := c.State().Members[0]
	p, err := c.StartChild(child.Spec{Name: "sleeper", Cmd: exec.Command("sleep", "30")})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(syscall.SIGTERM, time.Second)
	if got := slowfs.MountsOf(p.ID().PID, m.DataDir); !slices.Equal(got, []string{m.DataDir}) {
		t.Errorf("a child started with StartChild sees slow-disk mounts %v, want [%s]", got, m.DataDir)
	}
}

// TestSlowDiskKeepData keeps a slowed cluster's data and starts it again,
// slowed and then not: the slow disk covers the member dir itself, so etcd
// finds its data in the same place either way.
func TestSlowDiskKeepData(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	dir := filepath.Join(base, "kept")
	d, _ := slowfs.ParseDelay("15ms")
	c := start(t, Options{Members: 1, DataDir: dir, KeepData: true, FsyncDelay: d})
	if err := put(client(t, c.Client()), "persist", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}

	c2 := start(t, Options{Members: 1, DataDir: dir, KeepData: true, FsyncDelay: d})
	cli := client(t, c2.Client())
	if got := get(t, cli, "persist"); got != "yes" {
		t.Fatalf("kept cluster restarted on a slow disk lost its data: %q", got)
	}
	assertSlowPuts(t, cli, 15*time.Millisecond)
	assertPrivateMount(t, c2.State().Members[0], base)
	if err := c2.Stop(); err != nil {
		t.Fatal(err)
	}

	c3 := start(t, Options{Members: 1, DataDir: dir})
	if got := get(t, client(t, c3.Client()), "persist"); got != "yes" {
		t.Fatalf("kept slowed cluster restarted without a slow disk lost its data: %q", got)
	}
	if err := c3.Stop(); err != nil {
		t.Fatal(err)
	}
	if m := slowfs.MountsUnder(base); len(m) != 0 {
		t.Fatalf("mounts left: %v", m)
	}
}

// TestReadSlowDiskCluster: a read delay alone mounts the slow file system
// (reads and O_DIRECT writes of every file served by it, not passed
// through), and the member serves puts and gets from it.
func TestReadSlowDiskCluster(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	rd, _ := slowfs.ParseDelay("2ms")
	c := start(t, Options{Members: 1, BaseDir: base, ReadDelay: rd})
	cli := client(t, c.Client())
	if err := putRetry(cli, "k", "v"); err != nil {
		t.Fatal(err)
	}
	assertPrivateMount(t, c.State().Members[0], base)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if m := slowfs.MountsUnder(base); len(m) != 0 {
		t.Fatalf("mounts left: %v", m)
	}
}

// TestSlowedOps: what a member's slow disk delays.
func TestSlowedOps(t *testing.T) {
	t.Parallel()
	d, _ := slowfs.ParseDelay("1ms")
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"none", Options{}, nil},
		{"fsync", Options{FsyncDelay: d}, []string{"fsync"}},
		{"other member's fsync", Options{MemberFsyncDelay: map[string]*slowfs.Delay{"m2": d}}, nil},
		{"own fsync", Options{MemberFsyncDelay: map[string]*slowfs.Delay{"m1": d}}, []string{"fsync"}},
		{"all", Options{FsyncDelay: d, ReadDelay: d, WriteDelay: d}, []string{"fsync", "read", "write"}},
		{"read", Options{ReadDelay: d}, []string{"read"}},
	} {
		if got := tc.o.SlowedOps("m1"); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
