package kube

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// The emulated kube-apiservers' storage metrics, as k8s.io/apiserver names
// and labels them, and the count of apiservers they sum over (etcdlab's
// own: a real kube-apiserver is scraped one endpoint each).
const (
	// MetricEtcdRequests is etcd_requests_total{operation,group,resource}:
	// the storage layer's etcd requests (etcdCounts), summed over the
	// emulated apiservers.
	MetricEtcdRequests = "etcd_requests_total"
	// MetricObjects is apiserver_resource_objects{group,resource}: the
	// objects stored per resource (the last count poll, else the first
	// apiserver's watch cache).
	MetricObjects = "apiserver_resource_objects"
	// MetricAPIServers is etcdlab_kube_apiservers: how many emulated
	// kube-apiservers the endpoint's counts sum (each has a watch cache
	// per watched resource: one prev_kv watch of its prefix).
	MetricAPIServers = "etcdlab_kube_apiservers"
)

// apiMetrics is a prometheus.Collector of a run's storage metrics, one
// endpoint for all its apiservers; it reads atomics and the caches under
// their locks, so it is safe for concurrent use with the run.
type apiMetrics struct {
	st                       *store
	apis                     []*apiserver
	requests, objects, count *prometheus.Desc
}

func newAPIMetrics(st *store, apis []*apiserver) *apiMetrics {
	return &apiMetrics{st: st, apis: apis,
		requests: prometheus.NewDesc(MetricEtcdRequests, "Etcd request counts for each operation and object type (emulated kube-apiservers, summed).", []string{"operation", "group", "resource"}, nil),
		objects:  prometheus.NewDesc(MetricObjects, "Number of stored objects at the time of last check split by kind.", []string{"group", "resource"}, nil),
		count:    prometheus.NewDesc(MetricAPIServers, "Emulated kube-apiservers whose storage metrics this endpoint sums.", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (m *apiMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.requests
	ch <- m.objects
	ch <- m.count
}

// Collect implements prometheus.Collector.
func (m *apiMetrics) Collect(ch chan<- prometheus.Metric) {
	st := m.st
	ch <- prometheus.MustNewConstMetric(m.count, prometheus.GaugeValue, float64(len(m.apis)))
	for _, r := range allResources() {
		g := r.group()
		for v := range numVerbs {
			if n := st.etcd.n[v][r].Load(); n > 0 {
				ch <- prometheus.MustNewConstMetric(m.requests, prometheus.CounterValue, float64(n), v.String(), g, r.name())
			}
		}
		if n, ok := m.objectsOf(r); ok {
			ch <- prometheus.MustNewConstMetric(m.objects, prometheus.GaugeValue, float64(n), g, r.name())
		}
	}
}

// objectsOf is r's stored objects: the last count poll's, else the first
// apiserver's watch cache's size once it has synced.
func (m *apiMetrics) objectsOf(r res) (int64, bool) {
	if n := m.st.objects[r].Load(); n > 0 {
		return n - 1, true // stored plus one: 0 is "never counted"
	}
	if len(m.apis) == 0 {
		return 0, false
	}
	c := m.apis[0].caches[r]
	if c == nil {
		return 0, false
	}
	select {
	case <-c.hasSynced():
		return int64(c.len()), true
	default:
		return 0, false
	}
}

// group is r's API group: "" for the core group, else its storage
// version's group ("apps", "coordination.k8s.io").
func (r res) group() string {
	g, _, ok := strings.Cut(r.info().apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}
