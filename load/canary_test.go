package load

import (
	"testing"
	"time"
)

// TestClusterOutages: a gap between successes counts as the cluster's
// outage only when a canary to every member failed in it.
func TestClusterOutages(t *testing.T) {
	start := time.Unix(1000, 0)
	for _, tc := range []struct {
		name        string
		ok          slotSet
		failed      []slotSet // by member
		longest     time.Duration
		windows     int
		firstOffset time.Duration
	}{
		{"no failures", mark(0, 10, 20), []slotSet{nil, nil, nil}, 0, 0, 0},
		{"every member failed between successes", mark(0, 150), []slotSet{mark(5), mark(12), mark(30)}, 1490 * time.Millisecond, 1, 10 * time.Millisecond},
		{"one member served: a dead follower is no outage", mark(0, 10, 20, 30), []slotSet{mark(5, 15, 25), nil, nil}, 0, 0, 0},
		{"a member not asked in the gap: no outage", mark(0, 50), []slotSet{mark(5), mark(6), nil}, 0, 0, 0},
		{"failures in the slots of successes are no outage", mark(0, 5, 9), []slotSet{mark(5), mark(9)}, 0, 0, 0},
		{"ends unavailable", mark(0, 1), []slotSet{mark(3), mark(40, 70)}, 690 * time.Millisecond, 1, 20 * time.Millisecond},
		{"two outages", mark(0, 100, 300), []slotSet{mark(20, 250), mark(30, 200)}, 1990 * time.Millisecond, 2, 10 * time.Millisecond},
		{"never available", nil, []slotSet{mark(0, 64), mark(1, 129)}, 1300 * time.Millisecond, 1, 0},
		{"no members", mark(0), nil, 0, 0, 0},
	} {
		u := clusterOutages(tc.ok, tc.failed, start)
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
