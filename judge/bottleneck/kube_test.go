package bottleneck

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestKubeLimit: a bench kube cell whose replicaset controller needs most
// of the time to Ready at its 20 QPS is limited by that, with the floor;
// one where no component's floor comes near it is judged as any cell.
func TestKubeLimit(t *testing.T) {
	t.Parallel()
	cell := func(rsRequests int64, throttled float64) result.Cell {
		c := spec{setup: "multicloud-0", clients: 9, rps: 290, p50: 0.0074}.cell()
		c.Runs[0].Kube = &result.KubeRun{Mode: "manifest", TimeToReadySeconds: 25, Pods: 500, PodsReady: 500, Components: []result.KubeComponent{
			{Name: "kubectl", Requests: 22},
			{Name: "replicaset-controller", QPS: 20, Burst: 30, Requests: rsRequests, ThrottledSeconds: throttled},
			{Name: "kubelet ×6", QPS: 50, Burst: 100, Requests: 3033},
		}}
		return c
	}
	b := Cell(experiment(cell(540, 849)), 0, Options{})
	if b.Resource != ResourceRateLimit || !strings.Contains(b.Statement, "replicaset-controller sent 540 requests in the run through its 20 QPS limit (burst 30), at least 25.5 s of sending") ||
		!strings.Contains(b.Statement, "every pod was Ready after 25 s") || !near(b.Figures["rate_limit_floor_seconds"], 25.5) {
		t.Errorf("%s: %s %v", b.Resource, b.Statement, b.Figures)
	}
	if b := Cell(experiment(cell(100, 0)), 0, Options{}); b.Resource == ResourceRateLimit || !strings.Contains(b.Statement, "in the Kubernetes run of 500 pods") {
		t.Errorf("a floor of 3.5 s of 25 s named the limit, or the load was called clients: %s", b.Statement)
	}
	if got := componentFloor(&result.KubeComponent{Name: "kubelet ×6", QPS: 50, Burst: 100, Requests: 3033}); !near(got, (3033.0/6-100)/50) {
		t.Errorf("kubelets' floor per instance: %g", got)
	}
}
