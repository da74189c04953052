// Package units formats measurements for people: latencies with an explicit
// unit and counts without a fraction. It is a leaf: it imports nothing of
// etcdlab's, so the packages that judge, measure and render share one
// spelling of a value. Its functions are pure and safe for concurrent use.
package units

import "fmt"

// Seconds renders a duration in seconds with an explicit unit: ns, µs, ms
// or s, with the precision each range needs.
func Seconds(s float64) string {
	switch {
	case s < 1e-6:
		return fmt.Sprintf("%.0f ns", s*1e9)
	case s < 1e-3:
		return fmt.Sprintf("%.1f µs", s*1e6)
	case s < 1:
		return fmt.Sprintf("%.2f ms", s*1e3)
	default:
		return fmt.Sprintf("%.3f s", s)
	}
}

// Count renders a count (of events, such as leader changes) as a whole
// number.
func Count(n float64) string { return fmt.Sprintf("%.0f", n) }

// Quantile renders a quantile read off a Prometheus histogram whose lowest
// bucket ends at lowest seconds: "≤ 1.00 ms" when it is that bound (the
// histogram only says "at most"), otherwise as Seconds does.
func Quantile(s, lowest float64) string {
	if s > 0 && s <= lowest*(1+1e-9) {
		return "≤ " + Seconds(lowest)
	}
	return Seconds(s)
}
