package slowfs

import (
	"math"
	"testing"
	"time"
)

// TestDelayMean: the mean of a fixed delay is itself, of a log-normal its
// closed form (the hdd preset's p50 23 ms, p99 268 ms: 40 ms), and of a
// fitted delay close to the mean of many samples.
func TestDelayMean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec string
		want time.Duration
	}{{"20ms", 20 * time.Millisecond}, {"lognormal:p50=23ms,p99=268ms", 40200 * time.Microsecond}} {
		d, err := ParseDelay(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Mean(); math.Abs(float64(got-tc.want)) > 0.01*float64(tc.want) {
			t.Errorf("%s: mean %v, want %v", tc.spec, got, tc.want)
		}
	}
	d, err := ParseDelay("fit:p99=6376us,p99.5=9138us,p99.9=13721us")
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	const n = 200000
	for range n {
		sum += d.Sample()
	}
	if got, sampled := d.Mean(), sum/n; math.Abs(float64(got-sampled)) > 0.03*float64(sampled) {
		t.Errorf("fitted mean %v, %d samples' mean %v", got, n, sampled)
	}
}
