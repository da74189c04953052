package result

import (
	"math"
	"testing"
)

func TestMeanSDOf(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want MeanSD
	}{
		{nil, MeanSD{}},
		{[]float64{3}, MeanSD{Mean: 3}},
		{[]float64{1, 3}, MeanSD{Mean: 2, Stddev: math.Sqrt2}},
		{[]float64{2, 4, 4, 4, 5, 5, 7, 9}, MeanSD{Mean: 5, Stddev: math.Sqrt(32.0 / 7)}},
	} {
		got := MeanSDOf(tc.xs)
		if math.Abs(got.Mean-tc.want.Mean) > 1e-12 || math.Abs(got.Stddev-tc.want.Stddev) > 1e-12 {
			t.Errorf("%v: %+v, want %+v", tc.xs, got, tc.want)
		}
	}
}
