package load

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestRecorderStats records 1..1000 ms from many workers and checks the
// merged statistics against the exact values.
func TestRecorderStats(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	r := newRecorder(1, false, start)
	for i := 1; i <= 1000; i++ {
		sent := start.Add(time.Duration(i) * time.Millisecond)
		r.record(i%37, 0, sent, sent, sent.Add(time.Duration(i)*time.Millisecond), nil)
	}
	r.record(3, 0, start, start, start, status.Error(codes.Unavailable, "no leader"))
	r.record(4, 0, start, start, start, status.Error(codes.Unavailable, "no leader"))
	r.record(5, 0, start, start, start, errors.New("weird"))
	st := r.stats(-1, 2*time.Second)
	near := func(name string, got, want, tol float64) {
		if math.Abs(got-want) > tol*want {
			t.Errorf("%s = %g, want %g (±%g%%)", name, got, want, tol*100)
		}
	}
	if st.Requests != 1000 {
		t.Fatalf("requests %d", st.Requests)
	}
	near("mean", st.Latency.Mean, 0.5005, 1e-9)
	near("stddev", st.Latency.Stddev, math.Sqrt((1000*1000-1)/12.0)/1000, 1e-6)
	near("min", st.Latency.Min, 0.001, 1e-9)
	near("max", st.Latency.Max, 1.0, 1e-9)
	near("p50", st.Latency.P50, 0.500, 0.002)
	near("p99", st.Latency.P99, 0.990, 0.002)
	near("p99.9", st.Latency.P999, 0.999, 0.002)
	near("throughput", st.ThroughputRPS, 500, 1e-9)
	if st.Errors["Unavailable"] != 2 || st.Errors["Unknown"] != 1 || st.ErrorMessages["no leader"] != 2 {
		t.Errorf("errors %v %v", st.Errors, st.ErrorMessages)
	}
	var secReqs, secErrs int64
	for _, s := range st.TimeSeries {
		secReqs += s.Requests
		secErrs += s.Errors
	}
	if secReqs != 1000 || secErrs != 3 || st.TimeSeries[0].UnixSecond != 1000 {
		t.Errorf("time series: %d requests, %d errors, first second %d", secReqs, secErrs, st.TimeSeries[0].UnixSecond)
	}
	h, err := hdrhistogram.Decode([]byte(st.Histogram))
	if err != nil || h.TotalCount() != 1000 {
		t.Fatalf("encoded histogram: %v, count %d", err, h.TotalCount())
	}
}

// TestMachineBusy: the machine's busy CPU time grows while this process
// spins, by at least most of what it spun.
func TestMachineBusy(t *testing.T) {
	b0, ok := machineBusy()
	if !ok {
		t.Skip("/proc/stat not readable")
	}
	c0 := processCPU()
	for processCPU()-c0 < 300*time.Millisecond {
	}
	spun := processCPU() - c0
	b1, _ := machineBusy()
	if got := b1 - b0; got < spun*8/10 {
		t.Fatalf("machine busy grew %v while this process used %v", got, spun)
	}
}
