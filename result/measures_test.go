package result

import "testing"

// TestQuorumValue: a figure of the cluster is the figure of the member a
// commit waits for (the majority's slowest), and seconds without a leader
// count when a majority lacked one.
func TestQuorumValue(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		vals []float64
		n    int
		q, m float64
	}{{[]float64{3, 1, 2}, 3, 2, 2}, {[]float64{1}, 1, 1, 1}, {[]float64{5, 1}, 3, 5, 1}, {[]float64{1, 2, 3, 4, 5}, 5, 3, 3}, {nil, 3, 0, 0}} {
		if q := quorumValue(tt.vals, tt.n); q != tt.q {
			t.Errorf("quorumValue(%v, %d) = %g, want %g", tt.vals, tt.n, q, tt.q)
		}
		if m := majorityValue(tt.vals, tt.n); m != tt.m {
			t.Errorf("majorityValue(%v, %d) = %g, want %g", tt.vals, tt.n, m, tt.m)
		}
	}
}
