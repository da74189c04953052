package kubereal

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// kube-apiserver's storage metrics (k8s.io/apiserver
// pkg/storage/etcd3/metrics): every etcd request its storage layer sends,
// by operation, group and resource.
const (
	apiserverEtcdRequests metrics.Name = "etcd_requests_total"
	apiserverEtcdDuration metrics.Name = "etcd_request_duration_seconds"
)

// etcdOpKey is one (operation, resource) of the storage metrics; group is
// left out, as load/kube names its operations ("update pods").
type etcdOpKey = metrics.LabelPair

// etcdOpTotals are the counts and latency sums by operation and resource,
// summed over every apiserver.
type etcdOpTotals struct {
	count map[etcdOpKey]float64
	sum   map[etcdOpKey]float64
}

// scrapeAPIServers reads every apiserver's /metrics (as the administrator)
// and sums their storage metrics.
func scrapeAPIServers(ctx context.Context, client *http.Client, urls []string) (etcdOpTotals, error) {
	t := etcdOpTotals{count: map[etcdOpKey]float64{}, sum: map[etcdOpKey]float64{}}
	for _, u := range urls {
		s, err := metrics.ScrapeExporter(ctx, client, u+"/metrics", 10*time.Second)
		if err != nil {
			return t, fmt.Errorf("kube-apiserver metrics: %w", err)
		}
		for k, v := range s.SumByPair(apiserverEtcdRequests, "operation", "resource") {
			t.count[k] += v
		}
		for k, v := range s.SumByPair(apiserverEtcdDuration, "operation", "resource") {
			t.sum[k] += v
		}
	}
	return t, nil
}

// etcdOps are the requests between two scrapes as the run's table, busiest
// first: "operation resource" with the count and mean latency.
func etcdOps(before, after etcdOpTotals) []result.KubeEtcdRequests {
	var ops []result.KubeEtcdRequests
	for k, n := range after.count {
		d := n - before.count[k]
		if d <= 0 {
			continue
		}
		op := result.KubeEtcdRequests{Operation: k[0], Resource: k[1], Requests: int64(d + 0.5)}
		if s := after.sum[k] - before.sum[k]; s > 0 {
			op.MeanSeconds = s / d
		}
		ops = append(ops, op)
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Requests != ops[j].Requests {
			return ops[i].Requests > ops[j].Requests
		}
		return ops[i].Operation+ops[i].Resource < ops[j].Operation+ops[j].Resource
	})
	return ops
}
