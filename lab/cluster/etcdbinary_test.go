package cluster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// debianEtcd is Debian's etcd-server package's binary (3.4.23), which CI
// installs (.ci/run).
const debianEtcd = "/usr/bin/etcd"

// TestEtcdBinary: members from Debian's etcd 3.4 binary form a healthy
// TLS cluster that serves writes, whose members report 3.4's version to
// their clients and in the state, and that stops leaving no process.
func TestEtcdBinary(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(debianEtcd); err != nil {
		t.Skipf("no %s (CI installs Debian's etcd-server): %v", debianEtcd, err)
	}
	c := start(t, Options{Members: 3, TLS: true, Etcd: debianEtcd})
	st := c.State()
	if !strings.HasPrefix(st.EtcdVersion, "3.4.") || st.EtcdBinary != debianEtcd {
		t.Fatalf("state: version %q, binary %q", st.EtcdVersion, st.EtcdBinary)
	}
	cli := client(t, c.Client())
	if err := put(cli, "v34", "yes"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, ep := range c.Client().Endpoints {
		s, err := cli.Status(ctx, ep)
		if err != nil {
			t.Fatalf("status of %s: %s", ep, etcdclient.Describe(err))
		}
		if s.Version != st.EtcdVersion {
			t.Errorf("%s reports %s, the binary says %s", ep, s.Version, st.EtcdVersion)
		}
	}
	for _, m := range st.Members {
		exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(m.PID), "exe"))
		if err != nil || exe != debianEtcd {
			t.Errorf("%s runs %q (%v), want %s", m.Name, exe, err, debianEtcd)
		}
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, m := range st.Members {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(m.PID))); err == nil {
			t.Errorf("%s (pid %d) still runs after Stop", m.Name, m.PID)
		}
	}
}

// TestEtcdBinaryErrors: a path that is no etcd is one line of invalid
// input, before anything starts.
func TestEtcdBinaryErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notExec := filepath.Join(dir, "etcd")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "not an executable file"},
		{notExec, "not an executable file"},
		{"/bin/true", "printed no etcd version"},
	} {
		_, err := Start(context.Background(), Options{Members: 1, BaseDir: dir, Etcd: tc.path})
		if !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line of invalid input with %q", tc.path, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 { // the file written above
		t.Errorf("left behind: %v", ents)
	}
}
