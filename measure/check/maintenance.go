package check

import (
	"fmt"
	"math"
	"strings"

	"github.com/etcdlab/etcdlab/observe/metrics"
)

// maintenanceNote says which maintenance ran on the members between the
// two scrapes (the check's start and the end of its last level), from
// their own counters: a defragmentation (in flight at either end, or one
// more observed), a compaction (its batches and the time they held the
// backend's lock), a snapshot sent to a peer (a member catching up). ""
// when none did. The check's latency verdicts then include what it cost,
// which the note says: a cluster checked during its maintenance window is
// not the cluster of the rest of the day.
func maintenanceNote(names []string, before, after []*metrics.Snapshot) string {
	var seen []string
	for i := range before {
		if i >= len(after) || before[i] == nil || after[i] == nil {
			continue
		}
		b, a := before[i], after[i]
		name := fmt.Sprint(i + 1)
		if i < len(names) {
			name = names[i]
		}
		defrags := histCount(b, a, metrics.DefragDuration)
		inflight := gaugeOn(b, metrics.DefragInflight) || gaugeOn(a, metrics.DefragInflight)
		if defrags > 0 || inflight {
			s := name + " defragmented"
			if defrags > 0 {
				d, _ := metrics.SumIncrease(b, a, metrics.DefragDuration)
				s += fmt.Sprintf(" (%d, %.1f s)", defrags, d)
			}
			if inflight {
				s += " (in flight at an end)"
			}
			seen = append(seen, s)
		}
		if batches := histCount(b, a, metrics.CompactionPause); batches > 0 {
			held, _ := metrics.SumIncrease(b, a, metrics.CompactionPause)
			seen = append(seen, fmt.Sprintf("%s compacted (%d batches holding the backend's lock %.0f ms)", name, batches, held))
		}
		if sent, ok := metrics.Increase(b, a, metrics.SnapshotSendSuccess); ok && sent > 0 {
			seen = append(seen, fmt.Sprintf("%s sent %.0f snapshot(s) to a peer catching up", name, sent))
		}
	}
	if len(seen) == 0 {
		return ""
	}
	return "maintenance ran during the check: " + strings.Join(seen, "; ") + "; its latency verdicts include what that cost (run it again outside the maintenance window for the cluster's usual figures)"
}

// histCount is how many observations a histogram gained.
func histCount(b, a *metrics.Snapshot, name metrics.Name) int64 {
	d, ok := metrics.Deltas(b, a, name)
	if !ok {
		return 0
	}
	return int64(d[math.Inf(1)])
}

func gaugeOn(s *metrics.Snapshot, name metrics.Name) bool {
	v, ok := s.Gauge(name)
	return ok && v > 0
}
