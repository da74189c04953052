package load

import (
	"maps"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
)

// LiveBuckets are the upper bounds (seconds) of etcdlab_request_duration_seconds'
// buckets: 1, 1.5, 2, 3, 5 and 7 in every decade from 100 µs, up to 60 s
// (the recorder's ceiling). They include etcd's and Kubernetes' thresholds
// on request latency (10 ms, 25 ms, 100 ms, 1 s, 5 s, 30 s).
func LiveBuckets() []float64 {
	return []float64{
		0.0001, 0.00015, 0.0002, 0.0003, 0.0005, 0.0007,
		0.001, 0.0015, 0.002, 0.0025, 0.003, 0.005, 0.007,
		0.01, 0.015, 0.02, 0.025, 0.03, 0.05, 0.07,
		0.1, 0.15, 0.2, 0.3, 0.5, 0.7,
		1, 1.5, 2, 3, 5, 7,
		10, 15, 20, 30, 60,
	}
}

// liveDescs are the metrics Live exposes. Immutable.
type liveDescs struct {
	requests, duration, inFlight, target, agentIndex, agentCount, runInfo *prometheus.Desc
	// bounds are LiveBuckets; micros the same in microseconds, the HDR
	// histograms' unit.
	bounds []float64
	micros []int64
}

func newLiveDescs() liveDescs {
	d := liveDescs{
		requests: prometheus.NewDesc("etcdlab_requests_total",
			"Requests etcdlab's load completed, by operation and outcome (ok, or the failure's gRPC code).", []string{"op", "outcome"}, nil),
		duration: prometheus.NewDesc("etcdlab_request_duration_seconds",
			"Latency of successful requests by operation, as results report it (open loop: from the intended send time).", []string{"op"}, nil),
		inFlight: prometheus.NewDesc("etcdlab_requests_in_flight",
			"Requests sent and not answered yet.", nil, nil),
		target: prometheus.NewDesc("etcdlab_target_requests_per_second",
			"Rate the open-loop schedule asks for (0 in a closed loop or between runs).", nil, nil),
		agentIndex: prometheus.NewDesc("etcdlab_agent_index",
			"This process's index among the load generators of a distributed run (0 when it runs alone).", nil, nil),
		agentCount: prometheus.NewDesc("etcdlab_agent_count",
			"Load generators of the distributed run (1 when this process runs alone).", nil, nil),
		runInfo: prometheus.NewDesc("etcdlab_run_info",
			"1 for the run in progress: the command and the run's name (an experiment's cell).", []string{"command", "run"}, nil),
		bounds: LiveBuckets(),
	}
	for _, b := range d.bounds {
		d.micros = append(d.micros, int64(b*1e6+0.5))
	}
	return d
}

func (d *liveDescs) describe(ch chan<- *prometheus.Desc) {
	for _, x := range []*prometheus.Desc{d.requests, d.duration, d.inFlight, d.target, d.agentIndex, d.agentCount, d.runInfo} {
		ch <- x
	}
}

// liveOp is one operation's requests: outcomes counted, and the
// successes' latencies in LiveBuckets (per bucket, not cumulative; the
// last entry is above the highest bound) with their exact sum.
type liveOp struct {
	outcomes map[string]uint64
	buckets  []uint64
	sum      float64
}

func newLiveOp() *liveOp {
	return &liveOp{outcomes: map[string]uint64{}, buckets: make([]uint64, len(LiveBuckets())+1)}
}

func (o *liveOp) add(x *liveOp) {
	for k, v := range x.outcomes {
		o.outcomes[k] += v
	}
	for i, v := range x.buckets {
		o.buckets[i] += v
	}
	o.sum += x.sum
}

func (o *liveOp) clone() *liveOp {
	return &liveOp{outcomes: maps.Clone(o.outcomes), buckets: append([]uint64(nil), o.buckets...), sum: o.sum}
}

// collect sends the operation's counters and histogram.
func (o *liveOp) collect(d *liveDescs, name string, ch chan<- prometheus.Metric) {
	outcomes := make([]string, 0, len(o.outcomes))
	for k := range o.outcomes {
		outcomes = append(outcomes, k)
	}
	sort.Strings(outcomes)
	for _, k := range outcomes {
		ch <- prometheus.MustNewConstMetric(d.requests, prometheus.CounterValue, float64(o.outcomes[k]), name, k)
	}
	cum := make(map[float64]uint64, len(d.bounds))
	var n uint64
	for i, b := range d.bounds {
		n += o.buckets[i]
		cum[b] = n
	}
	n += o.buckets[len(d.bounds)]
	ch <- prometheus.MustNewConstHistogram(d.duration, n, o.sum, cum, name)
}

// outcomeOK is the outcome label of a successful request.
const outcomeOK = "ok"

// snapshot reads what run s recorded so far, by operation name: under
// each shard's lock, its counts and sums, and its latency histograms
// merged into one scratch histogram per operation; then, without locks,
// the scratch histograms are sorted into LiveBuckets. l.mu is held.
func (l *Live) snapshot(s *liveSource) map[string]*liveOp {
	r := s.rec
	for len(l.scratch) < r.ops {
		l.scratch = append(l.scratch, newHist())
	}
	ops := make([]*liveOp, r.ops)
	for j := range ops {
		ops[j] = newLiveOp()
		l.scratch[j].Reset()
	}
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		for j := range sh.per {
			a, o := &sh.per[j], ops[j]
			if a.n > 0 {
				o.outcomes[outcomeOK] += uint64(a.n)
				o.sum += a.sum
			}
			for code, n := range a.errsByCode {
				o.outcomes[code] += uint64(n)
			}
			if a.lat != nil {
				l.scratch[j].Merge(a.lat)
			}
		}
		sh.mu.Unlock()
	}
	out := make(map[string]*liveOp, len(ops))
	for j, o := range ops {
		if len(o.outcomes) == 0 {
			continue // never sent: no series for it
		}
		l.descs.bucket(l.scratch[j], o.buckets)
		name := s.ops[j]
		if prev := out[name]; prev != nil { // two indexes of one name
			prev.add(o)
			continue
		}
		out[name] = o
	}
	return out
}

// bucket adds h's values (microseconds) into buckets (per LiveBuckets
// bound, then above them). A value is sorted by the upper edge of its HDR
// bucket (at most 0.1% above it), as the results' percentiles are. It
// walks a copy of h's counts, whose layout is HDR's (hdrIndexTop), rather
// than hdrhistogram's Distribution, which allocates a bar per index.
func (d *liveDescs) bucket(h *hdrhistogram.Histogram, buckets []uint64) {
	if h.TotalCount() == 0 {
		return
	}
	b := 0
	for i, n := range h.Export().Counts {
		if n == 0 {
			continue
		}
		top := hdrIndexTop(i)
		for b < len(d.micros) && d.micros[b] < top {
			b++
		}
		buckets[b] += uint64(n)
	}
}

// hdrIndexTop is the highest value of the HDR bucket at counts index i
// for the recorder's histograms (lowest value 1, 3 significant digits):
// the first 2048 indexes hold one value each; after them, each run of
// 1024 indexes covers twice the range of the one before, at half the
// resolution (HDR's counts layout: sub-bucket half count 1024, unit
// magnitude 0). TestHDRIndexTop holds it to hdrhistogram's own
// Distribution.
func hdrIndexTop(i int) int64 {
	const half, halfMag = 1024, 10
	if i < 2*half {
		return int64(i)
	}
	shift := uint(i>>halfMag) - 1
	sub := int64(i&(half-1)) + half
	return sub<<shift + 1<<shift - 1
}
