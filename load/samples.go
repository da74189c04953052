package load

import (
	"slices"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// Samples keeps every request of the runs it is given to (Spec.Samples):
// its operation, when it was due and when it ended, and whether it
// failed, so that what clients saw in any window known only afterwards (a
// maintenance operation's) can be read exactly (Window). The histograms of
// a run cannot: they hold the whole run. It costs 24 bytes a request and
// keeps at most its capacity (NewSamples); later requests are counted as
// dropped, and Window says so.
//
// Safe for concurrent use: the runs' workers add while a reader reads.
type Samples struct {
	mu      sync.Mutex
	limit   int
	ops     []string       // operation names, by index
	index   map[string]int // name → index
	s       []sample
	dropped int64
}

// sample is one request: due and ended in unix nanoseconds.
type sample struct {
	due, end int64
	op       uint16
	failed   bool
}

// DefaultSampleLimit is NewSamples' capacity for 0: two million requests
// (48 MB), a steady load of 2,000 requests a second for over 16 minutes.
const DefaultSampleLimit = 2_000_000

// NewSamples returns an empty log that keeps up to limit requests
// (DefaultSampleLimit when limit ≤ 0).
func NewSamples(limit int) *Samples {
	if limit <= 0 {
		limit = DefaultSampleLimit
	}
	return &Samples{limit: limit, index: map[string]int{}}
}

// add records one request of operation op.
func (s *Samples) add(op string, due, end time.Time, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.s) >= s.limit {
		s.dropped++
		return
	}
	i, ok := s.index[op]
	if !ok {
		i = len(s.ops)
		s.ops = append(s.ops, op)
		s.index[op] = i
	}
	s.s = append(s.s, sample{due: due.UnixNano(), end: end.UnixNano(), op: uint16(i), failed: failed})
}

// Window returns, per operation in the order first seen, the requests
// that were in flight at some time in [from, to): due before to and ended
// after from. A request due in the window but answered after it counts
// with its whole latency, as the client saw it. dropped is how many
// requests the log could not keep, over all its time.
func (s *Samples) Window(from, to time.Time) (ops []result.OpWindow, dropped int64) {
	return s.Windows([][2]time.Time{{from, to}})
}

// Windows is Window over a union of windows: a request counts once when
// it was in flight in any of them (a policy's operations without the
// pauses between them).
func (s *Samples) Windows(ws [][2]time.Time) (ops []result.OpWindow, dropped int64) {
	s.mu.Lock()
	lat := make([][]float64, len(s.ops))
	out := make([]result.OpWindow, len(s.ops))
	for i, name := range s.ops {
		out[i].Op = name
	}
	for _, x := range s.s {
		in := false
		for _, w := range ws {
			if x.due < w[1].UnixNano() && x.end >= w[0].UnixNano() {
				in = true
				break
			}
		}
		if !in {
			continue
		}
		w := &out[x.op]
		w.Requests++
		if x.failed {
			w.Errors++
			continue
		}
		lat[x.op] = append(lat[x.op], float64(x.end-x.due)/1e9)
	}
	dropped = s.dropped
	s.mu.Unlock()
	for i := range out {
		l := lat[i]
		if len(l) == 0 {
			continue
		}
		slices.Sort(l)
		out[i].P50, out[i].P99, out[i].P999 = rank(l, 0.50), rank(l, 0.99), rank(l, 0.999)
		out[i].Max = l[len(l)-1]
	}
	for _, w := range out {
		if w.Requests > 0 {
			ops = append(ops, w)
		}
	}
	return ops, dropped
}

// rank is the nearest-rank q-quantile of sorted xs (not empty).
func rank(xs []float64, q float64) float64 {
	i := int(q*float64(len(xs))+0.999999999) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
