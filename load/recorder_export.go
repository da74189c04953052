package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/result"
)

// Recorder is the load engine's recorder for workloads that send their own
// requests instead of going through a Session (load/kube): per-operation
// HDR histograms, error counts by gRPC code, per-second series and
// client-observed unavailability, exactly as Session runs record them.
// Safe for concurrent use.
type Recorder struct{ r *recorder }

// NewRecorder returns a recorder for ops operations (indexes 0..ops-1)
// whose run started at start.
func NewRecorder(ops int, start time.Time) *Recorder {
	return &Recorder{r: newRecorder(ops, false, start)}
}

// Record adds one request of operation op, sent at sent and answered at
// end with err; w spreads concurrent callers over the recorder's shards
// (any int, e.g. a worker or component number).
func (r *Recorder) Record(w, op int, sent, end time.Time, err error) {
	r.r.record(w, op, sent, sent, end, err)
}

// Count returns the number of requests recorded so far.
func (r *Recorder) Count() int64 { return r.r.count() }

// Stats returns the statistics of operation op (every operation when op
// < 0) over elapsed.
func (r *Recorder) Stats(op int, elapsed time.Duration) result.Stats {
	return r.r.stats(op, elapsed)
}

// NewHistogram returns an empty histogram with the recorder's range (1 µs
// to 60 s, 3 significant digits), for latencies a workload measures
// itself (watch lag). Not safe for concurrent use.
func NewHistogram() *hdrhistogram.Histogram { return newHist() }

// RecordLatency adds d to h, clamped to the histogram's range.
func RecordLatency(h *hdrhistogram.Histogram, d time.Duration) {
	_ = h.RecordValue(clampMicros(d))
}

// SummarizeHistogram reads a latency summary (seconds) from a histogram of
// microseconds such as NewHistogram's.
func SummarizeHistogram(h *hdrhistogram.Histogram) result.Latency { return summarizeHist(h) }
