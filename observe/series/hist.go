package series

import (
	"math"
	"slices"

	"github.com/etcdlab/etcdlab/observe/metrics"
)

// hist is a histogram's observations over an interval: cumulative counts
// by upper bound (le ascending, +Inf last), as metrics.Deltas returns them,
// in two slices rather than a map so that a run's thousands of intervals
// stay small. The zero hist observed nothing.
type hist struct {
	le, n []float64
}

// histOf turns cumulative counts keyed by upper bound into a hist.
func histOf(cum map[float64]float64) hist {
	h := hist{le: make([]float64, 0, len(cum)), n: make([]float64, 0, len(cum))}
	for le := range cum {
		h.le = append(h.le, le)
	}
	slices.Sort(h.le)
	for _, le := range h.le {
		h.n = append(h.n, cum[le])
	}
	return h
}

// count is the number of observations.
func (h hist) count() float64 {
	if len(h.n) == 0 {
		return 0
	}
	return h.n[len(h.n)-1]
}

// quantile is metrics.UpperQuantile over h (histogram_quantile, with the
// lowest bucket's bound for a rank inside it), or 0 when h observed nothing
// (no etcd duration is 0).
func (h hist) quantile(q float64) float64 {
	if h.count() == 0 {
		return 0
	}
	cum := make(map[float64]float64, len(h.le))
	for i, le := range h.le {
		cum[le] = h.n[i]
	}
	v := metrics.UpperQuantile(q, cum)
	if math.IsNaN(v) {
		return 0
	}
	return v
}

// add returns the observations of h and o together. Histograms with the
// same bounds (always, unless a member was replaced by another version
// mid-run) add exactly; otherwise each is read as a step function on the
// union of the bounds, which counts an observation at the highest bound
// below its own (a lower bound of the combined counts).
func (h hist) add(o hist) hist {
	switch {
	case h.count() == 0 && len(h.le) == 0:
		return o
	case o.count() == 0 && len(o.le) == 0:
		return h
	case slices.Equal(h.le, o.le):
		n := make([]float64, len(h.n))
		for i := range n {
			n[i] = h.n[i] + o.n[i]
		}
		return hist{le: h.le, n: n}
	}
	cum := map[float64]float64{}
	for _, le := range append(slices.Clone(h.le), o.le...) {
		cum[le] = h.at(le) + o.at(le)
	}
	return histOf(cum)
}

// at is the cumulative count at bound x: the count of the highest bound
// not above x (0 below the lowest).
func (h hist) at(x float64) float64 {
	v := 0.0
	for i, le := range h.le {
		if le > x {
			break
		}
		v = h.n[i]
	}
	return v
}

// bucketRange is the upper bounds of the lowest and highest buckets that
// observed something (0, 0 when h observed nothing); an observation above
// the top finite bound counts as that bound.
func (h hist) bucketRange() (lowest, highest float64) {
	prev := 0.0
	for i, le := range h.le {
		if h.n[i] > prev {
			if math.IsInf(le, 1) {
				if i > 0 {
					le = h.le[i-1]
				} else {
					continue
				}
			}
			if lowest == 0 {
				lowest = le
			}
			highest = le
		}
		prev = h.n[i]
	}
	return lowest, highest
}
