package units

import "testing"

func TestSeconds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    float64
		want string
	}{{850e-9, "850 ns"}, {12.34e-6, "12.3 µs"}, {999e-6, "999.0 µs"}, {4.561e-3, "4.56 ms"}, {0.2687, "268.70 ms"}, {1.5, "1.500 s"}, {12, "12.000 s"}} {
		if got := Seconds(tt.s); got != tt.want {
			t.Errorf("%g: %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		n    float64
		want string
	}{{0, "0"}, {3, "3"}, {2.6, "3"}} {
		if got := Count(tt.n); got != tt.want {
			t.Errorf("%g: %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s, lowest float64
		want      string
	}{{0.001, 0.001, "≤ 1.00 ms"}, {0.0010000000001, 0.001, "≤ 1.00 ms"}, {0.0015, 0.001, "1.50 ms"}, {0.0001, 0.0001, "≤ 100.0 µs"}, {0.00012, 0.0001, "120.0 µs"}} {
		if got := Quantile(tt.s, tt.lowest); got != tt.want {
			t.Errorf("%g (lowest %g): %q, want %q", tt.s, tt.lowest, got, tt.want)
		}
	}
}
