package series

import (
	"math"
	"testing"
)

// TestBucketRange: the range is the lowest and highest buckets whose
// count grew, as a heatmap of the histogram shows them; an observation
// past the top finite bound counts as that bound.
func TestBucketRange(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	for _, tc := range []struct {
		name   string
		cum    map[float64]float64
		lo, hi float64
	}{
		{"nothing", map[float64]float64{0.0016: 0, 0.0032: 0, inf: 0}, 0, 0},
		{"one bucket", map[float64]float64{0.0016: 0, 0.0032: 4, 0.0064: 4, inf: 4}, 0.0032, 0.0032},
		{"a gap between", map[float64]float64{0.0016: 0, 0.0032: 1, 0.0064: 1, 0.0128: 1, 0.0256: 3, inf: 3}, 0.0032, 0.0256},
		{"past the top", map[float64]float64{0.0032: 2, 0.0064: 2, inf: 5}, 0.0032, 0.0064},
	} {
		lo, hi := histOf(tc.cum).bucketRange()
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: %g-%g, want %g-%g", tc.name, lo, hi, tc.lo, tc.hi)
		}
	}
}
