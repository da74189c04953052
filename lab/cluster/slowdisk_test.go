package cluster

import (
	"os"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
)

// ourMounts lists slowfs mounts under dir.
func ourMounts(t *testing.T, dir string) []string {
	t.Helper()
	return slowfs.MountsUnder(dir)
}

// TestSlowDiskCluster runs a member on a slow file system: every put pays
// the fsync delay, and Stop leaves no mount and no directory.
func TestSlowDiskCluster(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	d, _ := slowfs.ParseDelay("15ms")
	c := start(t, Options{Members: 1, BaseDir: base, FsyncDelay: d})
	if len(ourMounts(t, base)) != 1 {
		t.Fatalf("mounts: %v", ourMounts(t, base))
	}
	cli := client(t, c.Client())
	var total time.Duration
	for i := range 10 {
		t0 := time.Now()
		if err := put(cli, "k", string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
		total += time.Since(t0)
	}
	if avg := total / 10; avg < 15*time.Millisecond {
		t.Fatalf("average put %v with a 15 ms fsync delay", avg)
	} else {
		t.Logf("average put %v with a 15 ms fsync delay", avg)
	}
	dir := c.DataDir()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if m := ourMounts(t, base); len(m) != 0 {
		t.Fatalf("mounts left: %v", m)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("data dir left: %v", err)
	}
}
