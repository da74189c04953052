package load

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// liveScrape is one gathering of a Live's registry.
type liveScrape map[string]*dto.MetricFamily

func gatherLive(t *testing.T, reg *prometheus.Registry) liveScrape {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := liveScrape{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// metric returns the series of family name whose labels include want.
func (s liveScrape) metric(name string, want map[string]string) *dto.Metric {
	mf := s[name]
	if mf == nil {
		return nil
	}
	for _, m := range mf.GetMetric() {
		ok := 0
		for _, lp := range m.GetLabel() {
			if v, has := want[lp.GetName()]; has && v == lp.GetValue() {
				ok++
			}
		}
		if ok == len(want) {
			return m
		}
	}
	return nil
}

// requests returns etcdlab_requests_total with labels.
func (s liveScrape) requests(labels map[string]string) float64 {
	if m := s.metric("etcdlab_requests_total", labels); m != nil {
		return m.GetCounter().GetValue()
	}
	return 0
}

func (s liveScrape) gauge(name string) (float64, bool) {
	if m := s.metric(name, nil); m != nil {
		return m.GetGauge().GetValue(), true
	}
	return 0, false
}

func (s liveScrape) hist(op string) *dto.Histogram {
	if m := s.metric("etcdlab_request_duration_seconds", map[string]string{"op": op}); m != nil {
		return m.GetHistogram()
	}
	return nil
}

func newLiveRegistry(t *testing.T, o LiveOptions) (*Live, *prometheus.Registry) {
	t.Helper()
	l := NewLive(o)
	reg := prometheus.NewRegistry()
	if err := reg.Register(l); err != nil {
		t.Fatal(err)
	}
	return l, reg
}

// TestLiveBuckets records known latencies and failures into a Recorder
// and reads them back as Prometheus counters and cumulative buckets, while
// tracked and after (the totals keep them), across two runs.
func TestLiveBuckets(t *testing.T) {
	t.Parallel()
	l, reg := newLiveRegistry(t, LiveOptions{Command: "test"})
	t0 := time.Now()
	lat := []time.Duration{
		50 * time.Microsecond, 100 * time.Microsecond, 101 * time.Microsecond, 999 * time.Microsecond,
		time.Millisecond, 24 * time.Millisecond, 25 * time.Millisecond, 26 * time.Millisecond, 59 * time.Second, 90 * time.Second,
	}
	// le (seconds) -> successes at or below it, for the latencies above.
	// Up to 2 ms the HDR histogram holds every microsecond; 25 ms is in
	// the HDR bucket [24.992, 25.007] ms, sorted by its upper edge into
	// le=0.03; 90 s is recorded as 60 s, in [59.998, 60.031] s, so above
	// every bound.
	want := []struct {
		le float64
		n  uint64
	}{
		{0.0001, 2}, {0.00015, 3}, {0.0007, 3}, {0.001, 5}, {0.02, 5}, {0.025, 6}, {0.03, 8}, {30, 8}, {60, 9},
	}
	var sum float64 // exact, as the results' mean
	for _, d := range lat {
		sum += d.Seconds()
	}
	for runNo := 1; runNo <= 2; runNo++ {
		rec := NewRecorder(2, t0)
		stop := l.Track(rec, []string{"get", "put"}, func() int64 { return 3 })
		for i, d := range lat {
			rec.Record(i, 1, t0, t0.Add(d), nil)
		}
		rec.Record(0, 1, t0, t0, status.Error(codes.Unavailable, "down"))
		rec.Record(0, 1, t0, t0, context.DeadlineExceeded)
		rec.Record(1, 1, t0, t0, status.Error(codes.Unavailable, "down"))
		s := gatherLive(t, reg)
		stop()
		after := gatherLive(t, reg)
		k := uint64(runNo)
		for _, sc := range []struct {
			name string
			s    liveScrape
		}{{"while tracked", s}, {"after", after}} {
			if got := sc.s.requests(map[string]string{"op": "put", "outcome": "ok"}); got != float64(k*uint64(len(lat))) {
				t.Errorf("run %d %s: ok %v, want %d", runNo, sc.name, got, k*uint64(len(lat)))
			}
			if got := sc.s.requests(map[string]string{"op": "put", "outcome": "Unavailable"}); got != float64(2*k) {
				t.Errorf("run %d %s: Unavailable %v, want %d", runNo, sc.name, got, 2*k)
			}
			if got := sc.s.requests(map[string]string{"op": "put", "outcome": "DeadlineExceeded"}); got != float64(k) {
				t.Errorf("run %d %s: DeadlineExceeded %v, want %d", runNo, sc.name, got, k)
			}
			if sc.s.metric("etcdlab_requests_total", map[string]string{"op": "get"}) != nil || sc.s.hist("get") != nil {
				t.Errorf("run %d %s: an operation never sent has series", runNo, sc.name)
			}
			h := sc.s.hist("put")
			if h == nil {
				t.Fatalf("run %d %s: no histogram", runNo, sc.name)
			}
			if h.GetSampleCount() != k*uint64(len(lat)) || math.Abs(h.GetSampleSum()-float64(k)*sum) > 1e-6 {
				t.Errorf("run %d %s: count %d sum %v, want %d %v", runNo, sc.name, h.GetSampleCount(), h.GetSampleSum(), k*uint64(len(lat)), float64(k)*sum)
			}
			got := map[float64]uint64{}
			for _, b := range h.GetBucket() {
				got[b.GetUpperBound()] = b.GetCumulativeCount()
			}
			for _, w := range want {
				if got[w.le] != k*w.n {
					t.Errorf("run %d %s: bucket le=%g holds %d, want %d", runNo, sc.name, w.le, got[w.le], k*w.n)
				}
			}
		}
		if v, ok := s.gauge("etcdlab_requests_in_flight"); !ok || v != 3 {
			t.Errorf("run %d: in flight %v (%v), want 3", runNo, v, ok)
		}
		if v, ok := after.gauge("etcdlab_requests_in_flight"); !ok || v != 0 {
			t.Errorf("run %d: in flight after the run %v (%v), want 0", runNo, v, ok)
		}
	}
}

// TestLiveBucketBounds: the bounds increase, and each is a whole number
// of microseconds (the HDR histograms' unit), so a value on a bound is in
// its bucket.
func TestLiveBucketBounds(t *testing.T) {
	t.Parallel()
	b := LiveBuckets()
	if !sort.Float64sAreSorted(b) || b[len(b)-1] != float64(histMaxMicros)/1e6 {
		t.Fatalf("bounds %v: not increasing or not ending at the recorder's ceiling", b)
	}
	for _, x := range b {
		if us := x * 1e6; math.Abs(us-math.Round(us)) > 1e-6 {
			t.Errorf("bound %g s is not a whole number of microseconds", x)
		}
	}
}

// TestLiveInfo: agent gauges default to 0 of 1, and run_info names the
// outermost Begin while one is open.
func TestLiveInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		o           LiveOptions
		index, size float64
	}{
		{"alone", LiveOptions{Command: "bench"}, 0, 1},
		{"agent", LiveOptions{Command: "bench", AgentIndex: 2, AgentCount: 3}, 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			l, reg := newLiveRegistry(t, tc.o)
			s := gatherLive(t, reg)
			if v, _ := s.gauge("etcdlab_agent_index"); v != tc.index {
				t.Errorf("agent index %v, want %v", v, tc.index)
			}
			if v, _ := s.gauge("etcdlab_agent_count"); v != tc.size {
				t.Errorf("agent count %v, want %v", v, tc.size)
			}
			if v, ok := s.gauge("etcdlab_target_requests_per_second"); !ok || v != 0 {
				t.Errorf("target rate with no run %v (%v), want 0", v, ok)
			}
			if s["etcdlab_run_info"] != nil {
				t.Errorf("run_info with no run")
			}
			endCell := l.Begin("cell-1")
			endRun := l.Begin("put conns=1 clients=1")
			if m := gatherLive(t, reg).metric("etcdlab_run_info", map[string]string{"command": "bench", "run": "cell-1"}); m == nil || m.GetGauge().GetValue() != 1 {
				t.Errorf("run_info does not name the outer run: %v", m)
			}
			endRun()
			endRun() // a second call changes nothing
			if gatherLive(t, reg).metric("etcdlab_run_info", map[string]string{"run": "cell-1"}) == nil {
				t.Errorf("the cell's name went with its inner run")
			}
			endCell()
			if gatherLive(t, reg)["etcdlab_run_info"] != nil {
				t.Errorf("run_info after every run ended")
			}
		})
	}
}

// BenchmarkLiveCollect is one scrape of a Live over a recorder that
// recorded 200,000 requests with latencies from 0.5 ms to 2 s, on every
// shard: of one operation (bench put) and of 30 (bench kube's shape). Its
// time is what a scrape costs, most of it under the shards' locks
// (merging the HDR histograms).
func BenchmarkLiveCollect(b *testing.B) {
	for _, nops := range []int{1, 30} {
		b.Run(fmt.Sprintf("ops=%d", nops), func(b *testing.B) {
			l := NewLive(LiveOptions{})
			reg := prometheus.NewRegistry()
			reg.MustRegister(l)
			t0 := time.Now()
			ops := make([]string, nops)
			for i := range ops {
				ops[i] = fmt.Sprintf("op %d", i)
			}
			rec := NewRecorder(len(ops), t0)
			for i := range 200_000 {
				d := 500*time.Microsecond + time.Duration(i%4000)*500*time.Microsecond
				rec.Record(i, i%len(ops), t0, t0.Add(d), nil)
			}
			defer l.Track(rec, ops, nil)()
			b.ResetTimer()
			for range b.N {
				if _, err := reg.Gather(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestHDRIndexTop: walking the counts with hdrIndexTop finds the same
// buckets, with the same upper edges and counts, as hdrhistogram's own
// Distribution, over the recorder's whole range.
func TestHDRIndexTop(t *testing.T) {
	t.Parallel()
	h := newHist()
	for v := int64(1); v <= histMaxMicros; v = v*21/20 + 1 {
		_ = h.RecordValue(v)
	}
	_ = h.RecordValue(histMaxMicros)
	var bars []hdrhistogram.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			bars = append(bars, b)
		}
	}
	var got []hdrhistogram.Bar
	for i, n := range h.Export().Counts {
		if n > 0 {
			got = append(got, hdrhistogram.Bar{To: hdrIndexTop(i), Count: n})
		}
	}
	if len(got) != len(bars) {
		t.Fatalf("%d buckets with values, Distribution has %d", len(got), len(bars))
	}
	for i := range bars {
		if got[i].To != bars[i].To || got[i].Count != bars[i].Count {
			t.Fatalf("bucket %d: top %d count %d, Distribution says %d %d", i, got[i].To, got[i].Count, bars[i].To, bars[i].Count)
		}
	}
}
