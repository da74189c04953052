package result

import (
	"testing"
	"time"
)

// TestAttributeClients: a run's failed requests go to the step whose
// window holds the second they were sent in (the earlier of two steps
// sharing a second), those sent during the move but in no window to
// ClientErrorsOutside, those before or after the move nowhere; client
// unavailability counts only its part inside each window.
func TestAttributeClients(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_800_000_000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	u := Upgrade{Steps: []UpgradeStep{
		{Member: "m2", Began: at(10.2), Ready: at(11.5)}, // seconds 10 and 11
		{Member: "m3", Began: at(11.6), Ready: at(12.4)}, // 11 (m2's) and 12
		{Member: "m1", Began: at(20.5), Ready: at(21.5)}, // 20 and 21
	}}
	second := func(s int64, errs int64) Second {
		return Second{UnixSecond: t0.Unix() + s, Requests: 100, Errors: errs}
	}
	runs := []Run{{Stats: Stats{
		TimeSeries: []Second{second(5, 4), second(10, 1), second(11, 2), second(12, 3), second(15, 5), second(21, 6), second(30, 7)},
		ClientUnavailability: &Unavailability{Windows: []Window{
			{Start: at(11.0), Seconds: 1.0},  // 0.5 s in m2's window, 0.4 s in m3's
			{Start: at(21.25), Seconds: 1.0}, // 0.25 s in m1's
			{Start: at(3), Seconds: 1},       // before the move
		}},
	}}}
	u.AttributeClients(runs, at(25))
	for i, want := range []struct {
		errs  int64
		unavl float64
	}{{3, 0.5}, {3, 0.4}, {6, 0.25}} {
		s := u.Steps[i]
		if s.ClientErrors != want.errs || !near(s.ClientUnavailableSeconds, want.unavl) {
			t.Errorf("step %s: %d errors, %.3fs unavailable; want %d, %.3fs", s.Member, s.ClientErrors, s.ClientUnavailableSeconds, want.errs, want.unavl)
		}
	}
	if u.ClientErrorsOutside != 5 {
		t.Errorf("%d errors outside the windows, want 5 (second 15; not 5 nor 30, outside the move)", u.ClientErrorsOutside)
	}
	// Attributing again gives the same figures; the move's end defaults
	// to the last step's Ready.
	u.AttributeClients(runs, time.Time{})
	if u.Steps[0].ClientErrors != 3 || u.Steps[2].ClientErrors != 6 || u.ClientErrorsOutside != 5 {
		t.Errorf("again: %+v, %d outside", u.Steps, u.ClientErrorsOutside)
	}
	if (UpgradeStep{}).ClusterUnavailableSeconds() != 0 || (UpgradeStep{ClusterUnavailability: &Unavailability{TotalSeconds: 0.3}}).ClusterUnavailableSeconds() != 0.3 {
		t.Error("ClusterUnavailableSeconds")
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
