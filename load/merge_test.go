package load

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestMergeStatsExact records the same samples once into one recorder and
// once spread over four (as four agents would), and checks that merging
// the four gives the one recorder's statistics: percentiles equal to the
// histogram's precision (bit for bit: one histogram of every sample),
// pooled mean and standard deviation equal to rounding, the same errors
// and per-second series.
func TestMergeStatsExact(t *testing.T) {
	t.Parallel()
	for _, open := range []bool{false, true} {
		start := time.Unix(5000, 0)
		one := newRecorder(2, open, start)
		parts := []*recorder{newRecorder(2, open, start), newRecorder(2, open, start), newRecorder(2, open, start), newRecorder(2, open, start)}
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range 200_000 {
			intended := start.Add(time.Duration(rng.Int64N(int64(10 * time.Second))))
			sent := intended.Add(time.Duration(rng.ExpFloat64() * float64(50*time.Microsecond)))
			lat := time.Duration(math.Exp(rng.NormFloat64()*1.2+math.Log(2e6))) * time.Nanosecond // p50 2 ms, long tail
			var err error
			if i%997 == 0 {
				err = status.Error(codes.Unavailable, "etcdserver: no leader")
			}
			op := i % 2
			one.record(i, op, intended, sent, sent.Add(lat), err)
			parts[rng.IntN(len(parts))].record(i, op, intended, sent, sent.Add(lat), err)
		}
		for _, op := range []int{-1, 0, 1} {
			want := one.stats(op, 10*time.Second)
			var ss []result.Stats
			for _, p := range parts {
				ss = append(ss, p.stats(op, 10*time.Second))
			}
			got, err := MergeStats(ss, 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			g, w := got.Latency, want.Latency
			if g.P10 != w.P10 || g.P25 != w.P25 || g.P50 != w.P50 || g.P75 != w.P75 || g.P90 != w.P90 || g.P95 != w.P95 || g.P99 != w.P99 || g.P999 != w.P999 || g.Min != w.Min || g.Max != w.Max {
				t.Errorf("open=%v op=%d: merged percentiles %+v, one histogram %+v", open, op, g, w)
			}
			if math.Abs(g.Mean-w.Mean) > 1e-12 || math.Abs(g.Stddev-w.Stddev) > 1e-9*w.Stddev {
				t.Errorf("open=%v op=%d: mean/stddev %g/%g, want %g/%g", open, op, g.Mean, g.Stddev, w.Mean, w.Stddev)
			}
			if got.Histogram != want.Histogram {
				t.Errorf("open=%v op=%d: merged histogram differs from the one recorder's", open, op)
			}
			if open && (got.ServiceTime == nil || *got.ServiceTime != *want.ServiceTime) {
				t.Errorf("open=%v op=%d: service time %+v, want %+v", open, op, got.ServiceTime, want.ServiceTime)
			}
			if got.Requests != want.Requests || got.ThroughputRPS != want.ThroughputRPS || !reflect.DeepEqual(got.Errors, want.Errors) || !reflect.DeepEqual(got.ErrorMessages, want.ErrorMessages) {
				t.Errorf("open=%v op=%d: counts %d %g %v, want %d %g %v", open, op, got.Requests, got.ThroughputRPS, got.Errors, want.Requests, want.ThroughputRPS, want.Errors)
			}
			if len(got.TimeSeries) != len(want.TimeSeries) {
				t.Fatalf("series: %d seconds, want %d", len(got.TimeSeries), len(want.TimeSeries))
			}
			for i, s := range got.TimeSeries {
				ws := want.TimeSeries[i]
				if s.UnixSecond != ws.UnixSecond || s.Requests != ws.Requests || s.Errors != ws.Errors || s.Min != ws.Min || s.Max != ws.Max || math.Abs(s.Mean-ws.Mean) > 1e-12 {
					t.Errorf("second %d: %+v, want %+v", i, s, ws)
				}
			}
		}
	}
}

// TestMergeStatsRefuses: a part with requests but no histogram cannot be
// merged exactly, and a damaged histogram is an error, not a silent zero.
func TestMergeStatsRefuses(t *testing.T) {
	t.Parallel()
	if _, err := MergeStats([]result.Stats{{Requests: 5}}, time.Second); err == nil {
		t.Error("merged a part without a histogram")
	}
	if _, err := MergeStats([]result.Stats{{Requests: 5, Histogram: "HISTFAAAAxx"}}, time.Second); err == nil {
		t.Error("merged a damaged histogram")
	}
	if _, err := MergeStats(nil, time.Second); err == nil {
		t.Error("merged nothing")
	}
}

func TestIntersectUnavailability(t *testing.T) {
	t.Parallel()
	at := func(ms int) time.Time { return time.Unix(100, 0).Add(time.Duration(ms) * time.Millisecond) }
	u := func(ws ...[2]int) *result.Unavailability {
		out := &result.Unavailability{}
		for _, w := range ws {
			out.Add(at(w[0]), time.Duration(w[1]-w[0])*time.Millisecond)
		}
		return out
	}
	cases := []struct {
		name string
		in   []*result.Unavailability
		want *result.Unavailability
	}{
		{"one", []*result.Unavailability{u([2]int{0, 100})}, u([2]int{0, 100})},
		{"overlap", []*result.Unavailability{u([2]int{0, 100}, [2]int{500, 900}), u([2]int{50, 700})}, u([2]int{50, 100}, [2]int{500, 700})},
		{"one observer saw none", []*result.Unavailability{u([2]int{0, 100}), nil}, nil},
		{"disjoint", []*result.Unavailability{u([2]int{0, 100}), u([2]int{200, 300})}, nil},
	}
	for _, c := range cases {
		got := IntersectUnavailability(c.in)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
