package bottleneck

import (
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestKubeFloor: a component's floor (the least time its requests take
// through its QPS limit past its burst) is per instance for components
// that run several times. What the judge says of a bench kube cell is in
// testdata/cases/kube-*.golden: a replicaset controller that needs most
// of the time to Ready at its 20 QPS is the limit, with the floor; one
// whose floor is far below it is judged as any cell.
func TestKubeFloor(t *testing.T) {
	t.Parallel()
	if got := componentFloor(&result.KubeComponent{Name: "kubelet ×6", QPS: 50, Burst: 100, Requests: 3033}); !near(got, (3033.0/6-100)/50) {
		t.Errorf("kubelets' floor per instance: %g", got)
	}
	if got := componentFloor(&result.KubeComponent{Name: "replicaset-controller", QPS: 20, Burst: 30, Requests: 540}); !near(got, 25.5) {
		t.Errorf("replicaset controller's floor: %g", got)
	}
}
