package kube

import (
	"os"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/member"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

// startCluster starts a real cluster of n members for the test.
func startCluster(t *testing.T, n int) *clustertest.Cluster {
	return clustertest.Start(t, cluster.Options{Members: n})
}
