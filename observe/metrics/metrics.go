// Package metrics reads etcd members' Prometheus metrics and computes what
// PromQL would over an interval: histogram quantiles from bucket deltas
// (histogram_quantile over increase), counter increases and gauges. Text is
// parsed with prometheus/common's expfmt.
package metrics

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Snapshot is one scrape of one member.
type Snapshot struct {
	URL      string
	At       time.Time
	Families map[string]*dto.MetricFamily
}

// Scrape fetches url (a metrics URL; /metrics is added when it has no path)
// within timeout. Errors are one line: unreachable, HTTP status, or text
// that is not Prometheus exposition format.
func Scrape(ctx context.Context, url string, tlsCfg *tls.Config, timeout time.Duration) (*Snapshot, error) {
	url = metricsPath(url)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsCfg, DisableKeepAlives: true}}
	body, _, err := fetch(ctx, client, url, "", timeout)
	if err != nil {
		return nil, err
	}
	return Parse(url, time.Now(), bytes.NewReader(body))
}

// Parse reads one member's metrics in Prometheus text exposition format, as
// scraped from url at the time at: what Scrape does with a response body,
// and how tests replay recorded scrapes. Errors are one line: text that is
// not Prometheus exposition format, or metrics that are not etcd's.
func Parse(url string, at time.Time, r io.Reader) (*Snapshot, error) {
	fams, err := parseText(r)
	if err != nil {
		return nil, fmt.Errorf("%s does not serve Prometheus metrics: %w", url, firstLineOf(err))
	}
	if _, ok := fams[string(HasLeader)]; !ok {
		return nil, fmt.Errorf("%s serves Prometheus metrics, but not etcd's (no %s)", url, HasLeader)
	}
	return &Snapshot{URL: url, At: at, Families: fams}, nil
}

// parseText is expfmt's text parser, with its panics on malformed text
// (prometheus/common v0.62's parser dereferences nil on a line that opens
// with "{" after a TYPE line; fixed upstream in prometheus/common#922)
// turned into errors: a scraped body is anyone's input.
func parseText(r io.Reader) (fams map[string]*dto.MetricFamily, err error) {
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok {
				fams, err = nil, fmt.Errorf("text format parsing error: the parser failed: %w", e)
				return
			}
			fams, err = nil, fmt.Errorf("text format parsing error: the parser failed: %v", v)
		}
	}()
	// Since prometheus/common v0.66 the parser must be told which metric
	// names it accepts; UTF-8 is what the zero parser accepted before.
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

func shortErr(err error) string {
	s := err.Error()
	for _, k := range []string{"connection refused", "deadline exceeded", "certificate", "no such host"} {
		if strings.Contains(s, k) {
			return k
		}
	}
	return firstLine(s)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Gauge returns the sum of a gauge (or counter) over its label sets, and
// whether it exists.
func (s *Snapshot) Gauge(name Name) (float64, bool) {
	f := s.Families[string(name)]
	if f == nil {
		return 0, false
	}
	var v float64
	for _, m := range f.Metric {
		switch {
		case m.Gauge != nil:
			v += m.Gauge.GetValue()
		case m.Counter != nil:
			v += m.Counter.GetValue()
		case m.Untyped != nil:
			v += m.Untyped.GetValue()
		}
	}
	return v, true
}

// buckets returns a histogram's cumulative buckets summed over label sets
// (sum by (le)), with +Inf last.
func (s *Snapshot) buckets(name Name) (map[float64]float64, bool) {
	by := s.bucketsBy(name, "", nil)
	if by == nil {
		return nil, false
	}
	if all := by[""]; all != nil {
		return all, true
	}
	return map[float64]float64{}, true // a histogram without series
}

// Increase returns how much a counter grew from before to after (a reset
// counts from zero), and whether both have it. A nil before is the
// process's start: the increase is after's value.
func Increase(before, after *Snapshot, name Name) (float64, bool) {
	a, ok1 := after.Gauge(name)
	if before == nil {
		return a, ok1
	}
	b, ok2 := before.Gauge(name)
	if !ok1 || !ok2 {
		return 0, false
	}
	if a < b {
		return a, true
	}
	return a - b, true
}

// histSum returns a histogram's sum of observations over its label sets,
// and whether s has the histogram.
func (s *Snapshot) histSum(name Name) (float64, bool) {
	f := s.Families[string(name)]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM {
		return 0, false
	}
	var v float64
	for _, m := range f.Metric {
		v += m.Histogram.GetSampleSum()
	}
	return v, true
}

// SumIncrease is increase(name_sum) between two scrapes: the time (for a
// duration histogram) its observations took together, exact where the
// buckets only bound it. A shrunk sum (a restart) counts from zero; a nil
// before is the process's start.
func SumIncrease(before, after *Snapshot, name Name) (float64, bool) {
	a, ok1 := after.histSum(name)
	if before == nil {
		return a, ok1
	}
	b, ok2 := before.histSum(name)
	if !ok1 || !ok2 {
		return 0, false
	}
	if a < b {
		return a, true
	}
	return a - b, true
}

// FirstGauge returns the first of names that s has (a metric renamed
// between etcd versions, newest name first), summed over its label sets,
// and whether any was there.
func (s *Snapshot) FirstGauge(names ...Name) (float64, bool) {
	for _, n := range names {
		if v, ok := s.Gauge(n); ok {
			return v, true
		}
	}
	return 0, false
}

// LabelValues returns the distinct values of label across name's series,
// in the order they appear.
func (s *Snapshot) LabelValues(name Name, label string) []string {
	f := s.Families[string(name)]
	if f == nil {
		return nil
	}
	var out []string
	for _, m := range f.Metric {
		for _, lp := range m.Label {
			if lp.GetName() == label && !contains(out, lp.GetValue()) {
				out = append(out, lp.GetValue())
			}
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// SumBy sums a counter or gauge by the value of label (sum by (label)),
// over the series whose labels match every pair of where. Series without
// label sum under "".
func (s *Snapshot) SumBy(name Name, label string, where map[string]string) map[string]float64 {
	f := s.Families[string(name)]
	out := map[string]float64{}
	if f == nil {
		return out
	}
	for _, m := range f.Metric {
		key, matched := "", 0
		for _, lp := range m.Label {
			if lp.GetName() == label {
				key = lp.GetValue()
			}
			if want, ok := where[lp.GetName()]; ok && want == lp.GetValue() {
				matched++
			}
		}
		if matched != len(where) {
			continue
		}
		switch {
		case m.Counter != nil:
			out[key] += m.Counter.GetValue()
		case m.Gauge != nil:
			out[key] += m.Gauge.GetValue()
		case m.Untyped != nil:
			out[key] += m.Untyped.GetValue()
		}
	}
	return out
}

// IncreaseBy is Increase per value of label (increase of sum by (label)),
// over the series matching where; a nil before is the process's start.
// Values whose sum did not grow are left out.
func IncreaseBy(before, after *Snapshot, name Name, label string, where map[string]string) map[string]float64 {
	a := after.SumBy(name, label, where)
	var b map[string]float64
	if before != nil {
		b = before.SumBy(name, label, where)
	}
	out := map[string]float64{}
	for k, v := range a {
		d := v - b[k]
		if d < 0 { // counter reset
			d = v
		}
		if d > 0 {
			out[k] = d
		}
	}
	return out
}

// Quantile is UpperQuantile(q, increase(name_bucket[interval])) between
// two scrapes, in the histogram's unit, and the number of observations in
// the interval. It is NaN when nothing was observed.
func Quantile(q float64, before, after *Snapshot, name Name) (float64, float64) {
	delta, ok := Deltas(before, after, name)
	if !ok {
		return math.NaN(), 0
	}
	return UpperQuantile(q, delta), delta[math.Inf(1)]
}

// UpperQuantile is HistogramQuantile, except that a rank in the lowest
// bucket gives that bucket's upper bound instead of a guess between 0 and
// it. PromQL's interpolation there reads "WAL fsync p99 991 µs" off a tmpfs
// whose fsyncs take microseconds: all a histogram says is "at most 1 ms",
// so that is the figure (renderers print a value equal to the lowest bound
// as "≤ bound"; see result.LowestDiskBucket).
func UpperQuantile(q float64, cum map[float64]float64) float64 {
	v := HistogramQuantile(q, cum)
	if math.IsNaN(v) || q < 0 || q > 1 {
		return v
	}
	lowest := math.Inf(1)
	for le := range cum {
		lowest = min(lowest, le)
	}
	if v < lowest {
		return lowest
	}
	return v
}

// Deltas returns a histogram's cumulative bucket counts observed between two
// scrapes (increase(name_bucket[interval]) summed over label sets), keyed by
// upper bound with +Inf holding the number of observations, and whether
// both scrapes have the histogram. A bucket that shrank (a restarted
// member) counts from zero. A nil before is the process's start: the
// deltas are after's counts.
func Deltas(before, after *Snapshot, name Name) (map[float64]float64, bool) {
	a, ok1 := after.buckets(name)
	if before == nil {
		return a, ok1
	}
	b, ok2 := before.buckets(name)
	if !ok1 || !ok2 {
		return nil, false
	}
	return bucketDelta(b, a), true
}

// bucketDelta is after's cumulative buckets minus before's; a bucket that
// shrank (a restarted member) counts from zero.
func bucketDelta(before, after map[float64]float64) map[float64]float64 {
	delta := map[float64]float64{}
	for le, v := range after {
		d := v - before[le]
		if d < 0 { // counter reset
			d = v
		}
		delta[le] = d
	}
	return delta
}

// HistogramQuantile computes a quantile from cumulative bucket counts keyed
// by upper bound, as PromQL's histogram_quantile: linear interpolation
// inside the bucket holding the rank, the lowest bucket starting at 0, and
// the highest finite bound when the rank falls in +Inf.
func HistogramQuantile(q float64, cum map[float64]float64) float64 {
	bounds := make([]float64, 0, len(cum))
	for le := range cum {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	if len(bounds) < 2 || !math.IsInf(bounds[len(bounds)-1], 1) {
		return math.NaN()
	}
	total := cum[math.Inf(1)]
	if total == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	if q < 0 {
		return math.Inf(-1)
	}
	if q > 1 {
		return math.Inf(1)
	}
	rank := q * total
	i := sort.Search(len(bounds), func(i int) bool { return cum[bounds[i]] >= rank })
	if i == len(bounds)-1 {
		return bounds[len(bounds)-2]
	}
	lower, prev := 0.0, 0.0
	if i > 0 {
		lower, prev = bounds[i-1], cum[bounds[i-1]]
	}
	upper, count := bounds[i], cum[bounds[i]]
	if i == 0 && upper <= 0 {
		return upper
	}
	if count == prev {
		return upper
	}
	return lower + (upper-lower)*(rank-prev)/(count-prev)
}

// RankBucket returns the bucket (lower, upper] of cumulative counts cum
// (keyed by upper bound, +Inf last) that holds the k-th smallest
// observation, k counted from 1: that observation is above lower and at
// most upper, so lower is a lower bound of it, and of every observation
// from rank k up. Unlike HistogramQuantile it does not interpolate (an
// interpolated quantile can lie above the sample quantile it estimates).
// The lowest bucket starts at 0 when its upper bound is positive (the
// histograms etcdlab reads are durations; PromQL's histogram_quantile
// assumes the same), else at -Inf; the +Inf bucket starts at the highest
// finite bound. ok is false when k is not between 1 and the number of
// observations, or cum is not a histogram with a +Inf bucket.
func RankBucket(k float64, cum map[float64]float64) (lower, upper float64, ok bool) {
	bounds := make([]float64, 0, len(cum))
	for le := range cum {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	if len(bounds) == 0 || !math.IsInf(bounds[len(bounds)-1], 1) || math.IsNaN(k) || k < 1 || k > cum[math.Inf(1)] {
		return 0, 0, false
	}
	i := sort.Search(len(bounds), func(i int) bool { return cum[bounds[i]] >= k })
	switch {
	case i > 0:
		lower = bounds[i-1]
	case bounds[0] > 0:
		lower = 0
	default:
		lower = math.Inf(-1)
	}
	return lower, bounds[i], true
}

// bucketsBy is buckets grouped by label's value: sum by (label, le), for
// the series whose labels match where.
func (s *Snapshot) bucketsBy(name Name, label string, where map[string]string) map[string]map[float64]float64 {
	f := s.Families[string(name)]
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM {
		return nil
	}
	out := map[string]map[float64]float64{}
	for _, m := range f.Metric {
		labels := map[string]string{}
		if label != "" || len(where) > 0 { // buckets' sum over every series reads none
			for _, lp := range m.Label {
				labels[lp.GetName()] = lp.GetValue()
			}
		}
		skip := false
		for k, v := range where {
			skip = skip || labels[k] != v
		}
		if skip {
			continue
		}
		g := out[labels[label]]
		if g == nil {
			g = map[float64]float64{}
			out[labels[label]] = g
		}
		h := m.Histogram
		hasInf := false
		for _, b := range h.Bucket {
			g[b.GetUpperBound()] += float64(b.GetCumulativeCount())
			hasInf = hasInf || math.IsInf(b.GetUpperBound(), 1)
		}
		if !hasInf {
			g[math.Inf(1)] += float64(h.GetSampleCount())
		}
	}
	return out
}

// QuantilesBy is Quantile per value of label (histogram_quantile(q, sum by
// (label, le) (increase(name_bucket{where}[interval])))), with the number
// of observations of each; values without observations are left out.
func QuantilesBy(q float64, before, after *Snapshot, name Name, label string, where map[string]string) map[string][2]float64 {
	a := after.bucketsBy(name, label, where)
	b := before.bucketsBy(name, label, where)
	out := map[string][2]float64{}
	for v, cum := range a {
		delta := bucketDelta(b[v], cum)
		if n := delta[math.Inf(1)]; n > 0 {
			out[v] = [2]float64{HistogramQuantile(q, delta), n}
		}
	}
	return out
}
