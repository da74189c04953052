package render

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestReplayText: the fidelity table names every figure with its ratio,
// marks the rows off their tolerance, and says why the rate was not
// reached.
func TestReplayText(t *testing.T) {
	run := result.Run{Replay: &result.Replay{Profile: "prod.yaml", Speed: 5, Scale: 1, PreloadKeys: 2000, PreloadBytes: 3 << 20, Off: 1,
		Rows: []result.FidelityRow{
			{Name: "put rate", Unit: "/s", Want: 120, Got: 118.3, Ratio: 118.3 / 120, Tolerance: 0.1},
			{Name: "bytes per range", Unit: "B", Want: 40960, Got: 20480, Ratio: 0.5, Tolerance: 0.15, Off: true},
		},
		Reach: "sent 90 requests/s of the profile's 120 (75%): target saturated"}}
	got := replayText(run)
	for _, want := range []string{
		"Replay of prod.yaml (speed 5, scale 1) on a keyspace preloaded with 2,000 keys (3.0 MiB): 1 of 2 figures OFF",
		"put rate (/s)", "| 120 ", "| 118 ", "0.99", "±10%",
		"bytes per range", "40 KiB", "20 KiB", "0.50", "OFF",
		"Rate not reached: sent 90 requests/s",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("replay text lacks %q:\n%s", want, got)
		}
	}
	if strings.Count(got, "OFF") != 2 { // the heading and the one row
		t.Errorf("OFF appears %d times, want 2 (heading and row):\n%s", strings.Count(got, "OFF"), got)
	}
	if replayText(result.Run{}) != "" {
		t.Error("a run without a replay has replay text")
	}
}
