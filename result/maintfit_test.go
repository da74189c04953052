package result

import (
	"math"
	"testing"
	"time"
)

func defragCell(id, setup string, gibs, secs []float64) Cell {
	var ops []MaintenanceOp
	for i, g := range gibs {
		ops = append(ops, MaintenanceOp{Op: OpDefragment, Member: "m1", DBBytesBefore: int64(g * (1 << 31)), DBInUseBefore: int64(g * (1 << 30)),
			Seconds: secs[i], Blocked: &Unavailability{LongestSeconds: secs[i] * 0.9}})
	}
	return Cell{ID: id, Setup: setup, Maintenance: &Maintenance{Op: OpDefragment, Order: OrderFollower, Rounds: []MaintenanceRound{{Ops: ops}}}}
}

// TestDefragCurves fits a line through points on 2 + 3 s per GiB in use
// (the files twice that) with known residuals, per setup, and refuses to
// fit fewer than four sizes.
func TestDefragCurves(t *testing.T) {
	cells := []Cell{
		defragCell("mem/a", "memory", []float64{0.25, 0.5}, []float64{2.75 + 0.1, 3.5 - 0.1}),
		defragCell("mem/b", "memory", []float64{1, 2}, []float64{5 - 0.1, 8 + 0.1}),
		defragCell("hdd/a", "hdd", []float64{0.25, 0.5, 0.51}, []float64{3, 4, 4}), // 0.5 and 0.51 are one size
		{ID: "bench", Setup: "memory"},
		{ID: "policy", Setup: "memory", Maintenance: &Maintenance{Op: OpDefragment, Order: OrderLeaderLast, Rounds: []MaintenanceRound{{Ops: []MaintenanceOp{
			{Op: OpDefragment, Member: "m1", DBBytesBefore: 1 << 40, Seconds: 1}}}}}}, // a policy's turns are not the curve's
	}
	got := DefragCurves(cells)
	if len(got) != 2 || got[0].Setup != "memory" || got[1].Setup != "hdd" {
		t.Fatalf("%+v", got)
	}
	m := got[0]
	if !m.Fitted || m.Sizes != 4 || len(m.Points) != 4 || math.Abs(m.SecondsPerGiB-3) > 0.15 || math.Abs(m.Intercept-2) > 0.2 {
		t.Fatalf("memory: %+v", m)
	}
	if m.RMSError <= 0 || m.RMSError > 0.2 || m.SlopeError <= 0 || m.MaxRelError <= 0 || m.MaxRelError > 0.06 {
		t.Fatalf("memory's error: %+v", m)
	}
	// Rates 11.4, 6.8, 4.9, 4.05 s per GiB in use: the median of four is
	// the mean of the middle two.
	if math.Abs(m.MedianRate-(6.8+4.9)/2) > 1e-9 {
		t.Fatalf("median rate %g", m.MedianRate)
	}
	if math.Abs(m.BlockedPerGiB-0.9*m.SecondsPerGiB) > 1e-9 {
		t.Fatalf("blocked slope %g, want 0.9 × %g", m.BlockedPerGiB, m.SecondsPerGiB)
	}
	if h := got[1]; h.Fitted || h.Sizes != 2 || h.SecondsPerGiB != 0 {
		t.Fatalf("hdd: two sizes fitted: %+v", h)
	}
	if f := m.Points[0].Fragmentation; f != 0.5 {
		t.Fatalf("fragmentation %g", f)
	}
}

// TestPolicies sums a policy's rounds: the worst operation's p99 during
// the maintenance, errors, blocked windows; cells without a load are
// left out.
func TestPolicies(t *testing.T) {
	t0 := time.Unix(0, 0)
	round := func(p99a, p99b float64, errs int64, blocked float64) MaintenanceRound {
		return MaintenanceRound{Began: t0, Ended: t0.Add(time.Second),
			During:  []OpWindow{{Op: "put", P99: p99a, Errors: errs}, {Op: "range", P99: p99b}},
			Before:  []OpWindow{{Op: "put", P99: 0.01}},
			Ops:     []MaintenanceOp{{Op: OpDefragment, Blocked: &Unavailability{LongestSeconds: blocked}}},
			Skipped: []string{"m2: below"}, LeaderChanges: -1}
	}
	cells := []Cell{
		{ID: "a", Maintenance: &Maintenance{Policy: "p", Order: OrderLeaderLast, Load: "replay", Base: true, Rounds: []MaintenanceRound{round(0.5, 0.7, 2, 1), round(0.3, 0.1, 0, 3)}}},
		{ID: "b", Maintenance: &Maintenance{Policy: "curve", Order: OrderFollower, Load: "replay", Rounds: []MaintenanceRound{round(1, 1, 0, 1)}}},
	}
	got := Policies(cells)
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	p := got[0]
	if !p.Base || p.Rounds != 2 || p.WorstP99.Mean != 0.5 || p.Errors.Mean != 1 || p.Blocked.Mean != 2 || p.BeforeP99.Mean != 0.01 || p.Ops != 2 || p.Skipped != 2 || p.LeaderChanges.Mean != 0 {
		t.Fatalf("%+v", p)
	}
	if p.WorstP99.Stddev == 0 {
		t.Fatalf("no spread: %+v", p.WorstP99)
	}
}
