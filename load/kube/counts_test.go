package kube

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestDefaultManifestCounts runs the default manifest (10 × 50 pods, 10
// services, 6 nodes, 3 apiservers) on a 3-member cluster and prints the
// requests per operation and the etcd_requests_total view, to set beside
// a real control plane's. Only with ETCDLAB_KUBE_COUNTS set (it takes
// about a minute); ETCDLAB_KUBE_COUNTS=hollow runs hollow kubelets.
func TestDefaultManifestCounts(t *testing.T) {
	mode := os.Getenv("ETCDLAB_KUBE_COUNTS")
	if mode == "" || testing.Short() {
		t.Skip("set ETCDLAB_KUBE_COUNTS=1 (or hollow) to run the default manifest")
	}
	c := startCluster(t, 3)
	s := DefaultSpec()
	s.Prefix, s.HollowKubelets = "/counts", mode == "hollow"
	start := time.Now()
	run, err := Run(context.Background(), c.KV(), s)
	if err != nil {
		t.Fatal(err)
	}
	k := run.Kube
	if k.PodsReady != k.Pods {
		t.Fatalf("%d of %d pods ready (%s)", k.PodsReady, k.Pods, run.StoppedEarly)
	}
	t.Logf("hollow %v: time to ready %.1f s, run %.1f s, conflicts %d", s.HollowKubelets, k.TimeToReadySeconds, time.Since(start).Seconds(), k.Conflicts)
	for _, o := range run.Ops {
		t.Logf("op   %-34s %6d", o.Name, o.Requests)
	}
	for _, e := range k.EtcdRequests {
		t.Logf("etcd %-14s %-16s %6d", e.Operation, e.Resource, e.Requests)
	}
}
