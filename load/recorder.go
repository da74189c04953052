package load

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/result"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Histogram range: 1 µs to 60 s at 3 significant digits. Longer latencies
// are recorded as 60 s (a request timeout is far below that).
const (
	histMinMicros = 1
	histMaxMicros = 60_000_000
	histSigFigs   = 3
	maxErrorKinds = 64 // distinct error messages kept; more are counted as "other"
)

func newHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(histMinMicros, histMaxMicros, histSigFigs)
}

// recorder collects measurements from many workers with bounded memory: a
// few shards, each a mutex over per-operation histograms and sums. Worker i
// records into shard i mod n, so contention stays low at any client count.
// Safe for concurrent use.
type recorder struct {
	start  time.Time
	ops    int
	open   bool
	shards []recShard
	// samples, when set, also gets every request, named by names.
	samples *Samples
	names   []string
}

type recShard struct {
	mu   sync.Mutex
	per  []opAcc
	done int64 // requests recorded, ok or not
	last int64 // unix nanos of the latest completion
	// ok and failed mark the 10 ms slotSet in which requests completed.
	ok, failed slotSet
}

// opAcc accumulates one operation's results in one shard.
type opAcc struct {
	lat, svc      *hdrhistogram.Histogram // nil until the first success (svc only in open loop)
	n             int64
	sum, sumsq    float64 // seconds, for the exact mean and stddev
	min, max      float64
	secs          []secAcc // indexed by unix second - start second
	errsByCode    map[string]int64
	errsByMessage map[string]int64
}

type secAcc struct {
	n, errs       int64
	sum, min, max float64
}

func newRecorder(ops int, open bool, start time.Time) *recorder {
	n := min(4*runtime.GOMAXPROCS(0), 16)
	r := &recorder{start: start, ops: ops, open: open, shards: make([]recShard, n)}
	for i := range r.shards {
		r.shards[i].per = make([]opAcc, ops)
		for j := range r.shards[i].per {
			a := &r.shards[i].per[j]
			a.min = math.Inf(1) // histograms come with the first success: a workload of many operations (load/kube) records most of them on few shards
			a.errsByCode, a.errsByMessage = map[string]int64{}, map[string]int64{}
		}
	}
	return r
}

// record adds one request of operation op by worker w: sent is when it was
// sent, intended when it should have been (equal in a closed loop), end when
// the answer came.
func (r *recorder) record(w, op int, intended, sent, end time.Time, err error) {
	if r.samples != nil && op < len(r.names) {
		r.samples.add(r.names[op], intended, end, err != nil)
	}
	sh := &r.shards[w%len(r.shards)]
	sec := int(sent.Unix() - r.start.Unix())
	if sec < 0 {
		sec = 0
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.done++
	sh.last = max(sh.last, end.UnixNano())
	a := &sh.per[op]
	if err != nil {
		// A failure marks when the request was sent: a timeout ends long
		// after the outage it fell into, maybe after successes resumed.
		sh.failed.set(int(sent.Sub(r.start) / outageSlot))
	} else {
		sh.ok.set(int(end.Sub(r.start) / outageSlot))
	}
	for len(a.secs) <= sec {
		a.secs = append(a.secs, secAcc{min: math.Inf(1)})
	}
	s := &a.secs[sec]
	if err != nil {
		s.errs++
		code, msg := classify(err)
		a.errsByCode[code]++
		if _, ok := a.errsByMessage[msg]; ok || len(a.errsByMessage) < maxErrorKinds {
			a.errsByMessage[msg]++
		} else {
			a.errsByMessage["other errors"]++
		}
		return
	}
	lat := end.Sub(intended)
	secs := lat.Seconds()
	if a.lat == nil {
		a.lat = newHist()
		if r.open {
			a.svc = newHist()
		}
	}
	_ = a.lat.RecordValue(clampMicros(lat))
	if a.svc != nil {
		_ = a.svc.RecordValue(clampMicros(end.Sub(sent)))
	}
	a.n++
	a.sum += secs
	a.sumsq += secs * secs
	a.min, a.max = math.Min(a.min, secs), math.Max(a.max, secs)
	s.n++
	s.sum += secs
	s.min, s.max = math.Min(s.min, secs), math.Max(s.max, secs)
}

// count returns the number of requests recorded so far.
func (r *recorder) count() int64 {
	var n int64
	for i := range r.shards {
		r.shards[i].mu.Lock()
		n += r.shards[i].done
		r.shards[i].mu.Unlock()
	}
	return n
}

// lastEnd returns when the latest recorded request completed.
func (r *recorder) lastEnd() time.Time {
	var last int64
	for i := range r.shards {
		r.shards[i].mu.Lock()
		last = max(last, r.shards[i].last)
		r.shards[i].mu.Unlock()
	}
	return time.Unix(0, last)
}

// okSlots returns the slots in which requests succeeded.
func (r *recorder) okSlots() slotSet {
	var ok slotSet
	for i := range r.shards {
		r.shards[i].mu.Lock()
		ok.or(r.shards[i].ok)
		r.shards[i].mu.Unlock()
	}
	return ok
}

func clampMicros(d time.Duration) int64 {
	us := d.Microseconds()
	return max(histMinMicros, min(us, histMaxMicros))
}

// classify names an error by gRPC code, and by a message for the error
// distribution.
func classify(err error) (code, msg string) {
	if errors.Is(err, context.DeadlineExceeded) {
		return codes.DeadlineExceeded.String(), "request timed out: it took longer than the request timeout"
	}
	s, ok := status.FromError(err)
	if !ok {
		return codes.Unknown.String(), err.Error()
	}
	if s.Code() == codes.DeadlineExceeded {
		return s.Code().String(), "request timed out: it took longer than the request timeout"
	}
	return s.Code().String(), s.Message()
}

// stats merges the shards' accumulators for operation op (or for all
// operations when op < 0) into result statistics over elapsed.
func (r *recorder) stats(op int, elapsed time.Duration) result.Stats {
	lat, svc := newHist(), newHist()
	var n int64
	var sum, sumsq float64
	mn, mx := math.Inf(1), 0.0
	codes, msgs := map[string]int64{}, map[string]int64{}
	var secs []secAcc
	var ok, failed slotSet
	for i := range r.shards {
		sh := &r.shards[i]
		sh.mu.Lock()
		ok.or(sh.ok)
		failed.or(sh.failed)
		for j := range sh.per {
			if op >= 0 && j != op {
				continue
			}
			a := &sh.per[j]
			if a.lat != nil {
				lat.Merge(a.lat)
			}
			if a.svc != nil {
				svc.Merge(a.svc)
			}
			n += a.n
			sum, sumsq = sum+a.sum, sumsq+a.sumsq
			mn, mx = math.Min(mn, a.min), math.Max(mx, a.max)
			for k, v := range a.errsByCode {
				codes[k] += v
			}
			for k, v := range a.errsByMessage {
				msgs[k] += v
			}
			for len(secs) < len(a.secs) {
				secs = append(secs, secAcc{min: math.Inf(1)})
			}
			for k, s := range a.secs {
				t := &secs[k]
				t.n, t.errs, t.sum = t.n+s.n, t.errs+s.errs, t.sum+s.sum
				t.min, t.max = math.Min(t.min, s.min), math.Max(t.max, s.max)
			}
		}
		sh.mu.Unlock()
	}
	st := result.Stats{Requests: n, Errors: codes, ErrorMessages: msgs, DurationSeconds: elapsed.Seconds()}
	if elapsed > 0 {
		st.ThroughputRPS = float64(n) / elapsed.Seconds()
	}
	if n > 0 {
		st.Latency = summarize(lat, n, sum, sumsq, mn, mx)
		if r.open {
			l := summarizeHist(svc)
			st.ServiceTime = &l
		}
	}
	if b, err := lat.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		st.Histogram = string(b)
	}
	if r.open {
		if b, err := svc.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			st.ServiceHistogram = string(b)
		}
	}
	for k, s := range secs {
		p := result.Second{UnixSecond: r.start.Unix() + int64(k), Requests: s.n, Errors: s.errs}
		if s.n > 0 {
			p.Min, p.Mean, p.Max = s.min, s.sum/float64(s.n), s.max
		}
		st.TimeSeries = append(st.TimeSeries, p)
	}
	if len(msgs) == 0 {
		st.ErrorMessages = nil
	}
	// Outages are seen by the whole load, whichever operation failed.
	st.ClientUnavailability = outages(ok, failed, r.start)
	return st
}

func summarize(h *hdrhistogram.Histogram, n int64, sum, sumsq, mn, mx float64) result.Latency {
	l := summarizeHist(h)
	mean := sum / float64(n)
	l.Mean = mean
	l.Stddev = math.Sqrt(math.Max(0, sumsq/float64(n)-mean*mean)) // population, as etcd benchmark
	l.Min, l.Max = mn, mx
	// The histogram's percentiles are its buckets' upper edges, up to 0.1%
	// above the value; none may pass the exact slowest or fall below the
	// exact fastest.
	for _, p := range []*float64{&l.P10, &l.P25, &l.P50, &l.P75, &l.P90, &l.P95, &l.P99, &l.P999} {
		*p = math.Min(math.Max(*p, mn), mx)
	}
	return l
}

// summarizeHist reads a latency summary from a histogram alone.
func summarizeHist(h *hdrhistogram.Histogram) result.Latency {
	q := func(p float64) float64 { return float64(h.ValueAtPercentile(p)) / 1e6 }
	return result.Latency{
		Min: float64(h.Min()) / 1e6, Max: float64(h.Max()) / 1e6, Mean: h.Mean() / 1e6, Stddev: h.StdDev() / 1e6,
		P10: q(10), P25: q(25), P50: q(50), P75: q(75), P90: q(90), P95: q(95), P99: q(99), P999: q(99.9),
	}
}
