package kube

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// TestKubeletStatusWrites runs a small manifest with kubelets whose client
// keeps up (each pod's two statuses, ContainerCreating then Running and
// Ready, are two PATCHes) and with hollow kubelets throttled to 2 QPS
// (statuses set while the status manager waits for its client coalesce:
// fewer PATCHes than statuses, never fewer than one a pod). Either way each
// status sync is one quorum GET of the pod, and each pod's projected token
// is one TokenRequest: a GET of its ServiceAccount and one of the pod.
func TestKubeletStatusWrites(t *testing.T) {
	t.Parallel()
	cli := startCluster(t, 1).KV()
	const pods = 12
	for _, c := range []struct {
		name     string
		hollow   bool
		min, max int64 // status PATCHes
	}{
		// Two statuses a pod (Pending, then Running and Ready after the
		// next relist); both merge into one write when the node's status
		// goroutine is late, as on a loaded machine (seen in CI).
		{"kubelet", false, pods, 2 * pods},
		{"hollow kubelet at 2 QPS", true, pods, 2*pods - 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Spec{Prefix: "/status-" + map[bool]string{false: "real", true: "hollow"}[c.hollow], Deployments: 2, Replicas: pods / 2,
				Services: true, Nodes: 1, PodsPerNode: pods, APIServers: 1, HollowKubelets: c.hollow, Timeout: time.Minute}
			s.Limits = DefaultLimits()
			s.Limits.HollowKubelet = ClientLimits{QPS: 2, Burst: 1}
			run, err := Run(context.Background(), cli, s)
			if err != nil {
				t.Fatal(err)
			}
			if run.Kube.PodsReady != pods {
				t.Fatalf("%d of %d pods ready (%s)", run.Kube.PodsReady, pods, run.StoppedEarly)
			}
			ops := opCounts(run)
			etcd := etcdByName(run.Kube)
			patches := ops["patch pods/status"]
			t.Logf("status patches %d, pod GETs %d, TokenRequest etcd requests %d, etcd: get pods %d, update pods %d, get serviceaccounts %d",
				patches, ops["get pods"], ops["create serviceaccounts/token"], etcd["get pods"], etcd["update pods"], etcd["get serviceaccounts"])
			if patches < c.min || patches > c.max {
				t.Errorf("%d status PATCHes for %d pods, want [%d, %d]", patches, pods, c.min, c.max)
			}
			// A sync's GET, then a PATCH unless the status is already there.
			if ops["get pods"] < patches || ops["get pods"] > patches+pods {
				t.Errorf("%d status GETs for %d PATCHes", ops["get pods"], patches)
			}
			if etcd["get serviceaccounts"] != pods || ops["create serviceaccounts/token"] != 2*pods {
				t.Errorf("%d ServiceAccount GETs and %d TokenRequest etcd requests for %d pods, want %d and %d",
					etcd["get serviceaccounts"], ops["create serviceaccounts/token"], pods, pods, 2*pods)
			}
			if want := ops["get pods"] + pods; etcd["get pods"] < want {
				t.Errorf("etcd get pods %d, want at least the status GETs and the TokenRequests' %d", etcd["get pods"], want)
			}
			if etcd["update pods"] < patches+pods {
				t.Errorf("etcd update pods %d, want at least the bindings and status PATCHes %d", etcd["update pods"], patches+pods)
			}
		})
	}
}

// opCounts returns the run's requests by operation.
func opCounts(run result.Run) map[string]int64 {
	out := map[string]int64{}
	for _, o := range run.Ops {
		out[o.Name] = o.Requests
	}
	return out
}

// etcdByName returns etcd_requests_total's view by "operation resource".
func etcdByName(k *result.KubeRun) map[string]int64 {
	out := map[string]int64{}
	for _, e := range k.EtcdRequests {
		out[e.Operation+" "+e.Resource] = e.Requests
	}
	return out
}
