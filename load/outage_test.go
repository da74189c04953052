package load

import (
	"testing"
	"time"
)

func TestOutages(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		name        string
		ok, failed  slotSet
		longest     time.Duration
		windows     int
		firstOffset time.Duration
	}{
		{"no errors", mark(0, 1, 2, 300), nil, 0, 0, 0},
		{"errors between successes", mark(0, 1, 150), mark(5, 100), 1480 * time.Millisecond, 1, 20 * time.Millisecond},
		{"failures in the same slots as successes are no outage", mark(0, 1, 2), mark(1, 2), 0, 0, 0},
		{"three outages", mark(0, 10, 20, 200), mark(5, 15, 100), 1790 * time.Millisecond, 3, 10 * time.Millisecond},
		{"ends unavailable", mark(0, 1), mark(3, 70), 690 * time.Millisecond, 1, 20 * time.Millisecond},
		{"never available", nil, mark(0, 64, 129), 1300 * time.Millisecond, 1, 0},
	} {
		u := outages(tc.ok, tc.failed, start)
		if tc.windows == 0 {
			if u != nil {
				t.Errorf("%s: %+v, want none", tc.name, u)
			}
			continue
		}
		if u == nil {
			t.Errorf("%s: no outage", tc.name)
			continue
		}
		if got := time.Duration(u.LongestSeconds * float64(time.Second)); got.Round(time.Millisecond) != tc.longest || len(u.Windows) != tc.windows {
			t.Errorf("%s: longest %v in %d windows, want %v in %d", tc.name, got, len(u.Windows), tc.longest, tc.windows)
		}
		if off := u.Windows[0].Start.Sub(start); off != tc.firstOffset {
			t.Errorf("%s: first window starts at +%v, want +%v", tc.name, off, tc.firstOffset)
		}
	}
}

// mark is a slot set holding the slots idx.
func mark(idx ...int) slotSet {
	var s slotSet
	for _, i := range idx {
		s.set(i)
	}
	return s
}
