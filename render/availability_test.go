package render

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// TestAvailabilityText: the report names the cluster's unavailability (from
// canaries) and the clients' apart, each with its definition, and says
// "never" when canaries saw no outage while the clients did.
func TestAvailabilityText(t *testing.T) {
	at := time.Date(2026, 11, 23, 10, 0, 2, 0, time.UTC)
	win := func(secs float64) *result.Unavailability {
		u := &result.Unavailability{}
		u.Add(at, time.Duration(secs*float64(time.Second)))
		return u
	}
	canary := &result.Canary{IntervalSeconds: 0.1, Members: []string{"a", "b", "c"}, Requests: 300, Errors: 20}
	for _, tc := range []struct {
		name      string
		run       result.Run
		want, not []string
	}{
		{"leader kill", result.Run{Canary: canary, ClusterUnavailability: win(1.05), Stats: result.Stats{ClientUnavailability: win(7)}},
			[]string{"Cluster unavailable (no member served the workload's request; canaries every 100ms to 3 member(s), so +/- 100ms):\n  longest 1.05 secs, 1 window(s), 1.05 secs in all\n  from " + at.Local().Format("15:04:05.00") + " for 1.05 secs",
				"Client-observed unavailability (the load's requests failed and none succeeded; 10 ms resolution):\n  longest 7.00 secs"}, nil},
		{"clients only", result.Run{Canary: canary, Stats: result.Stats{ClientUnavailability: win(0.5)}},
			[]string{"Cluster unavailable (", "  never\n", "Client-observed unavailability"}, nil},
		{"no canary", result.Run{Stats: result.Stats{ClientUnavailability: win(0.5)}},
			[]string{"Client-observed unavailability"}, []string{"Cluster unavailable"}},
		{"nothing", result.Run{Canary: canary}, nil, []string{"unavailab"}},
	} {
		got := availability(tc.run)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: missing %q in:\n%s", tc.name, w, got)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: unexpected %q in:\n%s", tc.name, n, got)
			}
		}
	}
}
