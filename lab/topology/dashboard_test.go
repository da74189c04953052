package topology

import (
	"testing"
	"time"
)

// TestMulticloudAgainstDashboards checks the multi-cloud presets against
// the round-trip ranges the article's dashboards showed (000: "Scenario-0
// RTT varies from 0.0032 s to 0.0256 s" ... "Scenario-3 RTT varies from
// 0.0512 s to 0.2048 s"), labels of etcd's peer round-trip buckets (0.1 ms
// doubling). etcd observes each prober's smoothed round trip: the
// pipeline prober's is one round trip over a kept connection, so the
// nearest pair's round trip falls in the article's lowest bucket; the
// stream prober dials anew (TCP and TLS handshakes, then the request:
// three round trips on a WAN), so three of the farthest pair's round trip
// stays within its highest bucket (load can only add to it).
func TestMulticloudAgainstDashboards(t *testing.T) {
	t.Parallel()
	bucket := func(d time.Duration) time.Duration {
		le := 100 * time.Microsecond
		for le < d {
			le *= 2
		}
		return le
	}
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	for _, sc := range []struct {
		preset          string
		lowest, highest time.Duration
	}{
		{"multicloud-0", ms(3.2), ms(25.6)},
		{"multicloud-1", ms(3.2), ms(51.2)},
		{"multicloud-2", ms(12.8), ms(102.4)},
		{"multicloud-3", ms(51.2), ms(204.8)},
	} {
		links := mustLinks(t, sc.preset, 3)
		var nearest, farthest time.Duration
		for d, l := range links {
			if d.From == "client" || d.To == "client" {
				continue
			}
			rtt := 2 * l.Delay
			if nearest == 0 || rtt < nearest {
				nearest = rtt
			}
			farthest = max(farthest, rtt)
		}
		if got := bucket(nearest); got != sc.lowest {
			t.Errorf("%s: the nearest pair's %v round trip falls in the %v bucket, the article's lowest was %v", sc.preset, nearest, got, sc.lowest)
		}
		if got := bucket(3 * farthest); got > sc.highest {
			t.Errorf("%s: three of the farthest pair's %v round trip fall in the %v bucket, above the article's highest %v", sc.preset, farthest, got, sc.highest)
		}
	}
}
