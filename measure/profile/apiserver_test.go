package profile

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/etcdlab/etcdlab/load/replay"
)

// apiserverText is a kube-apiserver's storage metrics after n scrapes:
// per scrape 3,000 lists of pods, 1,000 gets of nodes, 1,000 creates of
// events and 3,000 updates of leases, as a real one exposes them
// (k8s.io/apiserver's etcd_requests_total and apiserver_resource_objects).
func apiserverText(n int64) string {
	return fmt.Sprintf(`# HELP etcd_requests_total [ALPHA] Etcd request counts for each operation and object type.
# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="list",resource="pods"} %d
etcd_requests_total{group="",operation="get",resource="nodes"} %d
etcd_requests_total{group="",operation="create",resource="events"} %d
etcd_requests_total{group="coordination.k8s.io",operation="update",resource="leases"} %d
etcd_requests_total{group="",operation="get",resource="secrets"} 5
# HELP apiserver_resource_objects [ALPHA] Number of stored objects at the time of last check split by kind.
# TYPE apiserver_resource_objects gauge
apiserver_resource_objects{group="",resource="pods"} 120
apiserver_resource_objects{group="",resource="nodes"} 3
`, 3000*n, 1000*n, 1000*n, 3000*n)
}

// TestAttribute: the window's range and txn rows are split across the
// resources by the kube-apiserver's shares (3:1 each here), the resources'
// objects become prefixes, and an apiserver that fails is said.
func TestAttribute(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(apiserverText(n.Add(1))))
	}))
	defer srv.Close()
	o := Options{APIServerMetrics: []string{srv.URL + "/metrics", "http://127.0.0.1:1/metrics"}}
	api, err := o.apiservers()
	if err != nil {
		t.Fatal(err)
	}
	before := api.scrape(context.Background())
	after := api.scrape(context.Background())
	p := &replay.Profile{Operations: []replay.Operation{
		{Op: replay.OpRange, Rate: 8, RangeBytes: 100},
		{Op: replay.OpTxn, Rate: 4, ValueBytes: 50},
		{Op: replay.OpPut, Rate: 2},
	}}
	attribute(p, before, after)
	got := map[string]float64{}
	for _, op := range p.Operations {
		got[op.Op+" "+op.Prefix] = op.Rate
		if op.Op == replay.OpRange && op.Prefix != "" && op.RangeBytes != 100 {
			t.Errorf("%s: rangeBytes %g, want the operation's 100", op.Prefix, op.RangeBytes)
		}
	}
	for k, want := range map[string]float64{
		"range /registry/pods/": 6, "range /registry/minions/": 2,
		"txn /registry/leases/": 3, "txn /registry/events/": 1, "put ": 2,
	} {
		if math.Abs(got[k]-want) > 1e-6 {
			t.Errorf("%s: %g/s, want %g (rows %v)", k, got[k], want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("rows %v, want 5", got)
	}
	if p.Keyspace == nil || len(p.Keyspace.Prefixes) != 2 || p.Keyspace.Prefixes[1] != (replay.PrefixShape{Prefix: "/registry/pods/", Resource: "pods", Keys: 120}) {
		t.Errorf("keyspace %+v", p.Keyspace)
	}
	if !strings.Contains(strings.Join(p.Unattributed, "\n"), "127.0.0.1:1") {
		t.Errorf("unattributed %q does not name the apiserver that failed", p.Unattributed)
	}
}

// TestRegistryPrefix holds the resources' etcd prefixes.
func TestRegistryPrefix(t *testing.T) {
	for _, tc := range []struct{ resource, want string }{
		{"pods", "/registry/pods/"}, {"services", "/registry/services/specs/"}, {"endpoints", "/registry/services/endpoints/"},
		{"nodes", "/registry/minions/"}, {"coordination.k8s.io/leases", "/registry/leases/"},
		{"example.com/widgets", "/registry/example.com/widgets/"},
	} {
		if got := registryPrefix(tc.resource); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.resource, got, tc.want)
		}
	}
}
