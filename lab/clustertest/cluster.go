package clustertest

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Cluster is a real local cluster that stops when its test ends. It is the
// lab/cluster.Cluster (every method of which it has), plus a client and the
// key helpers. Its methods may be called from any goroutine of the test;
// those that fail the test do so with t.Fatal and so belong on the test's
// own goroutine.
type Cluster struct {
	*cluster.Cluster
	t   testing.TB
	cli func() (*clientv3.Client, error)
}

// Start starts a cluster with o and registers its Stop with t.Cleanup.
// Zero Members means 1; with neither DataDir nor BaseDir set, the data
// lives in t.TempDir(). A start that fails fails the test, with the
// failing member's log tail in the test's log.
func Start(t testing.TB, o cluster.Options) *Cluster {
	t.Helper()
	if o.Members == 0 {
		o.Members = 1
	}
	if o.DataDir == "" && o.BaseDir == "" {
		o.BaseDir = t.TempDir()
	}
	c, err := cluster.Start(context.Background(), o)
	if err != nil {
		var se *cluster.StartError
		if errors.As(err, &se) {
			t.Log(se.Detail())
		}
		t.Fatalf("start cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("stop cluster: %v", err)
		}
	})
	return &Cluster{Cluster: c, t: t, cli: sync.OnceValues(func() (*clientv3.Client, error) {
		cli, err := etcdclient.New(c.Client())
		if err == nil {
			t.Cleanup(func() { cli.Close() })
		}
		return cli, err
	})}
}

// Tmpfs returns a directory on /dev/shm, removed when the test ends, for a
// BaseDir whose disk is not under test (this machine's may be too slow for
// etcd). It skips the test where there is no /dev/shm.
func Tmpfs(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "clustertest-")
	if err != nil {
		t.Skipf("no tmpfs at /dev/shm: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// KV returns a client of the cluster (etcd's clientv3), made on first use
// and closed when the test ends (before the cluster stops).
func (c *Cluster) KV() *clientv3.Client {
	c.t.Helper()
	cli, err := c.cli()
	if err != nil {
		c.t.Fatalf("client: %v", err)
	}
	return cli
}

// requestTimeout bounds each request the helpers send.
const requestTimeout = 5 * time.Second
