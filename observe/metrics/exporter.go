package metrics

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// ScrapeExporter fetches url (a full metrics URL) from any Prometheus
// exporter, not only an etcd member (a kube-apiserver's /metrics, read
// with client's credentials), within timeout, and parses its text. Errors
// are one line: unreachable, HTTP status, or text that is not Prometheus
// exposition format. It is safe for concurrent use as client is.
func ScrapeExporter(ctx context.Context, client *http.Client, url string, timeout time.Duration) (*Snapshot, error) {
	body, _, err := fetch(ctx, client, url, "", timeout)
	if err != nil {
		return nil, err
	}
	fams, err := parseText(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s does not serve Prometheus metrics: %s", url, firstLine(err.Error()))
	}
	return &Snapshot{URL: url, At: time.Now(), Families: fams}, nil
}

// LabelPair is the values of two labels of a series.
type LabelPair [2]string

// SumByPair sums name by the values of two labels (sum by (first,
// second)): a counter's, gauge's or untyped sample's value, or a
// histogram's sum of observations. Series without a label sum under ""
// for it. A missing family is an empty map.
func (s *Snapshot) SumByPair(name Name, first, second string) map[LabelPair]float64 {
	out := map[LabelPair]float64{}
	f := s.Families[string(name)]
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		var k LabelPair
		for _, lp := range m.GetLabel() {
			switch lp.GetName() {
			case first:
				k[0] = lp.GetValue()
			case second:
				k[1] = lp.GetValue()
			}
		}
		out[k] += sampleValue(m)
	}
	return out
}

// sampleValue is a sample's value, or a histogram's sum.
func sampleValue(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	case m.Histogram != nil:
		return m.Histogram.GetSampleSum()
	}
	return 0
}
