package metrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestScrapeExporter: another exporter's text (a kube-apiserver's storage
// metrics) is read without etcd's families, and SumByPair sums a counter
// and a histogram's sum by two labels over the third.
func TestScrapeExporter(t *testing.T) {
	const text = `# TYPE etcd_requests_total counter
etcd_requests_total{group="",operation="create",resource="pods"} 3
etcd_requests_total{group="apps",operation="create",resource="pods"} 2
etcd_requests_total{group="",operation="get",resource="nodes"} 7
# TYPE etcd_request_duration_seconds histogram
etcd_request_duration_seconds_bucket{group="",operation="create",resource="pods",le="+Inf"} 3
etcd_request_duration_seconds_sum{group="",operation="create",resource="pods"} 0.5
etcd_request_duration_seconds_count{group="",operation="create",resource="pods"} 3
`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(text)) }))
	defer srv.Close()
	s, err := ScrapeExporter(context.Background(), srv.Client(), srv.URL+"/metrics", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	n := s.SumByPair("etcd_requests_total", "operation", "resource")
	if n[LabelPair{"create", "pods"}] != 5 || n[LabelPair{"get", "nodes"}] != 7 || len(n) != 2 {
		t.Errorf("counts %v", n)
	}
	if d := s.SumByPair("etcd_request_duration_seconds", "operation", "resource"); d[LabelPair{"create", "pods"}] != 0.5 || len(d) != 1 {
		t.Errorf("sums %v", d)
	}
	if m := s.SumByPair("missing", "a", "b"); len(m) != 0 {
		t.Errorf("missing family: %v", m)
	}
	if _, err := ScrapeExporter(context.Background(), srv.Client(), srv.URL+"/x", time.Nanosecond); err == nil {
		t.Error("a scrape past its timeout succeeded")
	}
}
