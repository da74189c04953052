package kube

import (
	"context"
	"testing"
	"time"
)

// TestControlPlaneLeases runs a steady cluster for 12 s: the controller
// manager's and the scheduler's leader election each GET their lease,
// create it and renew it every 2 s (one update each, no GET), and each
// apiserver's identity lease is renewed every 10 s (once in the run).
func TestControlPlaneLeases(t *testing.T) {
	t.Parallel()
	cli := startCluster(t, 1).KV()
	const d = 12 * time.Second
	s := Spec{Prefix: "/leases", Mode: ModeSteady, Duration: d, Deployments: 1, Replicas: 1, Nodes: 1, APIServers: 2}
	start := time.Now()
	run, err := Run(context.Background(), cli, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run %s", time.Since(start).Round(time.Millisecond))
	comps := map[string]int64{}
	for _, c := range run.Kube.Components {
		comps[c.Name] = c.Requests
	}
	renewals := int64(d / leaderRetryPeriod)
	for _, name := range []string{"kube-controller-manager (leader election)", "kube-scheduler (leader election)"} {
		// A GET and a create, then a renewal every 2 s of the run (the
		// last one may fall just after its end: the period slides by each
		// renewal's latency).
		if n := comps[name]; n < 2+renewals-1 || n > 2+renewals {
			t.Errorf("%s: %d requests in %s, want 2 + %d renewals (or one fewer)", name, n, d, renewals)
		}
	}
	// Two identity leases: a GET and a create each, then one renewal
	// each, 10 s (+ up to 4% jitter) after.
	if n := comps["kube-apiserver (identity lease)"]; n != 2*2+2 {
		t.Errorf("identity leases: %d requests, want 6", n)
	}
	etcd := etcdByName(run.Kube)
	if etcd["get leases"] != 2+2 || etcd["create leases"] != 2+2+1 {
		t.Errorf("lease GETs %d (want one per holder, 4), creates %d (want 5 with the node's)", etcd["get leases"], etcd["create leases"])
	}
	t.Logf("components %v, etcd %v", comps, etcd)
}
