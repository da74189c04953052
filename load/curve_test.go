package load

import (
	"math"
	"testing"
	"time"
)

// TestCurveOffset: request k is due where the curve's integral reaches k;
// a segment of rate 0 issues nothing; past the end there is no request.
func TestCurveOffset(t *testing.T) {
	t.Parallel()
	c := Curve{{2 * time.Second, 10}, {time.Second, 0}, {time.Second, 100}, {0, 50}}
	for _, tc := range []struct {
		k    int64
		want time.Duration
		ok   bool
	}{
		{0, 0, true},
		{1, 100 * time.Millisecond, true},
		{19, 1900 * time.Millisecond, true},
		{20, 3 * time.Second, true}, // the 0-rate second is skipped
		{21, 3*time.Second + 10*time.Millisecond, true},
		{119, 3*time.Second + 990*time.Millisecond, true},
		{120, 0, false}, // the zero-length segment issues nothing
		{-1, 0, false},
	} {
		got, ok := c.Offset(tc.k)
		if ok != tc.ok || (ok && (got-tc.want).Abs() > time.Microsecond) {
			t.Errorf("Offset(%d) = %s, %v; want %s, %v", tc.k, got, ok, tc.want, tc.ok)
		}
	}
	if d, n, m := c.Duration(), c.Requests(), c.Mean(); d != 4*time.Second || n != 120 || m != 30 {
		t.Errorf("duration %s, requests %g, mean %g", d, n, m)
	}
	if _, ok := (Curve{}).Offset(0); ok {
		t.Error("an empty curve issued a request")
	}
}

// TestCurveRun: an open loop on a Curve sends what each second of the
// curve asks for, and the recorder's per-second series shows it.
func TestCurveRun(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	curve := Curve{{time.Second, 50}, {time.Second, 200}, {time.Second, 0}, {time.Second, 100}}
	r := runOn(t, c, Wire, putLoad("/curve/", 100), Spec{Clients: 8, Curve: curve, RequestTimeout: 5 * time.Second})
	if r.Requests != 350 || len(r.Errors) != 0 {
		t.Fatalf("%d requests, errors %v, want 350 and none", r.Requests, r.Errors)
	}
	if r.ServiceTime == nil {
		t.Error("no service time: the curve's run is not recorded as open loop")
	}
	// Seconds are counted from the run's start second, so each segment
	// may straddle two of them: compare the series with the curve's
	// count in each whole second of the clock.
	start := r.Start
	want := map[int64]float64{}
	for k := range int64(350) {
		off, _ := curve.Offset(k)
		want[start.Add(off).Unix()]++
	}
	got := map[int64]float64{}
	for _, s := range r.TimeSeries {
		got[s.UnixSecond] = float64(s.Requests)
	}
	for sec, n := range want {
		if math.Abs(got[sec]-n) > 0.1*n+3 {
			t.Errorf("second %d: %g requests, the curve asks for %g (series %v)", sec-start.Unix(), got[sec], n, r.TimeSeries)
		}
	}
}
