package kube

import (
	"context"
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

// startCluster starts a real cluster of n members and returns a client.
func startCluster(t *testing.T, n int) *clientv3.Client {
	t.Helper()
	cli, _ := startClusterConf(t, n)
	return cli
}

// startClusterConf starts an n-member cluster and returns a client and how
// to reach it.
func startClusterConf(t *testing.T, n int) (*clientv3.Client, etcdclient.Config) {
	t.Helper()
	c, err := cluster.Start(context.Background(), cluster.Options{Members: n, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli, c.Client()
}
