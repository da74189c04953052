package disk

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/result"
)

// FioPercentiles is fio's default percentile_list. Each call returns a
// copy: the table cannot be changed from outside.
func FioPercentiles() [17]float64 {
	return [...]float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}
}

// latencies accumulates durations with bounded memory: an HDR histogram in
// nanoseconds (1 ns to 60 s, 3 significant digits) for percentiles, and
// exact sums for min, max, mean and stddev. Not safe for concurrent use.
type latencies struct {
	h          *hdrhistogram.Histogram
	n          int64
	sum, sumsq float64
	min, max   float64
}

func newLatencies() *latencies {
	return &latencies{h: hdrhistogram.New(1, 60e9, 3), min: math.Inf(1)}
}

func (l *latencies) add(d time.Duration) {
	ns := max(int64(d), 1)
	_ = l.h.RecordValue(min(ns, int64(60e9)))
	s := d.Seconds()
	l.n++
	l.sum += s
	l.sumsq += s * s
	l.min, l.max = math.Min(l.min, s), math.Max(l.max, s)
}

func (l *latencies) merge(o *latencies) {
	l.h.Merge(o.h)
	l.n += o.n
	l.sum += o.sum
	l.sumsq += o.sumsq
	l.min, l.max = math.Min(l.min, o.min), math.Max(l.max, o.max)
}

// summary returns the distribution with fio's percentiles; nil when empty.
func (l *latencies) summary() *result.DiskLatency {
	if l.n == 0 {
		return nil
	}
	mean := l.sum / float64(l.n)
	out := &result.DiskLatency{Min: l.min, Max: l.max, Mean: mean,
		Stddev: math.Sqrt(math.Max(0, l.sumsq/float64(l.n)-mean*mean))}
	for _, p := range FioPercentiles() {
		out.Percentiles = append(out.Percentiles, result.Percentile{P: p, Seconds: float64(l.h.ValueAtPercentile(p)) / 1e9})
	}
	return out
}
