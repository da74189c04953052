package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/etcdlab/etcdlab/result"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// kube-apiserver's storage metrics (k8s.io/apiserver
// pkg/storage/etcd3/metrics): every etcd request its storage layer sends,
// by operation, group and resource.
const (
	apiserverEtcdRequests = "etcd_requests_total"
	apiserverEtcdDuration = "etcd_request_duration_seconds"
)

// etcdOpKey is one (operation, resource) of the storage metrics; group is
// left out, as load/kube names its operations ("update pods").
type etcdOpKey struct{ op, resource string }

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
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		body, err := getBody(ctx, client, u+"/metrics")
		cancel()
		if err != nil {
			return t, fmt.Errorf("kube-apiserver metrics: %w", err)
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
		if err != nil {
			return t, fmt.Errorf("kube-apiserver metrics: %w", err)
		}
		addFamily(t.count, fams[apiserverEtcdRequests], func(m *dto.Metric) float64 { return m.GetCounter().GetValue() })
		addFamily(t.sum, fams[apiserverEtcdDuration], func(m *dto.Metric) float64 { return m.GetHistogram().GetSampleSum() })
	}
	return t, nil
}

// addFamily adds each metric of f (value read by v) to into, by its
// operation and resource labels.
func addFamily(into map[etcdOpKey]float64, f *dto.MetricFamily, v func(*dto.Metric) float64) {
	if f == nil {
		return
	}
	for _, m := range f.GetMetric() {
		var k etcdOpKey
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "operation":
				k.op = l.GetValue()
			case "resource":
				k.resource = l.GetValue()
			}
		}
		into[k] += v(m)
	}
}

// getBody GETs url and returns its body, or an error for any status but 200.
func getBody(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
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
		op := result.KubeEtcdRequests{Operation: k.op, Resource: k.resource, Requests: int64(d + 0.5)}
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
