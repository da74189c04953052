package slowfs

import (
	"math"
	"strings"
	"testing"
)

// TestFitReport001: a delay fitted to field report 001's fio percentiles
// (an EBS volume on an m5.xlarge: fdatasync 99.00th 6,376 µs, 99.50th
// 9,138 µs, 99.90th 13,721 µs) reproduces each within ±10% (issue 24).
func TestFitReport001(t *testing.T) {
	t.Parallel()
	d, err := ParseDelay("fit:p99=6376us,p99.5=9138us,p99.9=13721us")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range d.Fit(400000) {
		if off := p.Got.Seconds()/p.Want.Seconds() - 1; math.Abs(off) > 0.10 {
			t.Errorf("p%g: sampled %s, want %s (%+.1f%%)", p.Percentile, p.Got, p.Want, 100*off)
		}
	}
	if r := d.FitReport(); !strings.HasPrefix(r, "fitted delay, sampled: p99 ") || strings.Count(r, "%") != 3 {
		t.Errorf("report %q", r)
	}
	if fixed, _ := ParseDelay("10ms"); fixed.Fit(10) != nil {
		t.Error("a fixed delay has a fit")
	}
}

// TestFitErrors: a fit needs two increasing percentiles or more.
func TestFitErrors(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"fit:", "fit:p50=2ms", "fit:p50=2ms,p99=1ms", "fit:p50=2ms,p50=3ms", "fit:p100=2ms,p50=1ms", "fit:q50=2ms,p99=3ms", "fit:p50=-2ms,p99=3ms", "fit:p50=2ms,p99=x"} {
		if _, err := ParseDelay(bad); err == nil {
			t.Errorf("%q: no error", bad)
		} else if !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: error %q does not quote it", bad, err)
		}
	}
}
