package render

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// maintenanceDoc is the maintenance built-in's result in small: four curve
// cells (one follower defragmented at growing sizes), a base policy and
// another over two rounds each, an OpenShift trigger that skipped a
// member, and a catch-up.
func maintenanceDoc() *result.Document {
	t0 := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	defrag := func(member string, mib int64, secs, blocked float64, p99 float64) result.MaintenanceOp {
		return result.MaintenanceOp{Op: result.OpDefragment, Member: member, Began: t0, Ended: t0.Add(time.Duration(secs * float64(time.Second))), Seconds: secs,
			DBBytesBefore: 2 * mib << 20, DBBytesAfter: mib << 20, DBInUseBefore: mib << 20, Blocked: &result.Unavailability{LongestSeconds: blocked, TotalSeconds: blocked},
			Clients: []result.OpWindow{{Op: "txn", Requests: 90, P99: p99, P999: p99, Max: p99}, {Op: "range", Requests: 20, P99: 0.004}}}
	}
	round := func(p99 float64, errs int64, ops ...result.MaintenanceOp) result.MaintenanceRound {
		return result.MaintenanceRound{DBBytes: 600 << 20, Fragmentation: 0.5, Ops: ops, Began: t0, Ended: t0.Add(3 * time.Second),
			Before: []result.OpWindow{{Op: "txn", Requests: 400, P99: 0.01}}, During: []result.OpWindow{{Op: "txn", Requests: 300, Errors: errs, P99: p99, P999: p99 + 0.1}}}
	}
	curve := func(mib int64, secs float64) result.Cell {
		w := "defrag-" + strconv.FormatInt(mib, 10) + "m"
		return result.Cell{ID: "memory/" + w, Setup: "memory", Workload: w, Status: result.CellOK, Maintenance: &result.Maintenance{
			Policy: "defragment, one follower", Op: result.OpDefragment, Order: result.OrderFollower, Trigger: "always", Load: "replay sample:kube",
			Rounds: []result.MaintenanceRound{round(secs, 0, defrag("m2", mib, secs, secs-0.01, secs))}}}
	}
	policy := func(w, text, order string, base bool, rounds ...result.MaintenanceRound) result.Cell {
		return result.Cell{ID: "memory/" + w, Setup: "memory", Workload: w, Status: result.CellOK, Maintenance: &result.Maintenance{
			Policy: text, Op: result.OpDefragment, Order: order, Trigger: "always", Base: base, Load: "replay sample:kube", PauseSeconds: 36, Rounds: rounds}}
	}
	skipped := round(0.9, 0, defrag("m2", 128, 0.8, 0.8, 0.9))
	skipped.Skipped = []string{"m3: 30% of 250 MB free, OpenShift's trigger wants ≥ 45% of > 100 MB"}
	idle := round(0, 0)
	idle.Skipped = []string{"m1: 30% free", "m2: 30% free", "m3: 30% free"}
	idle.During = nil
	catchUp := result.Cell{ID: "memory/catch-up", Setup: "memory", Workload: "catch-up", Status: result.CellOK, Maintenance: &result.Maintenance{
		Policy: "catch-up, one follower", Op: result.OpCatchUp, Order: result.OrderFollower, Trigger: "always", Load: "replay sample:kube",
		Rounds: []result.MaintenanceRound{round(0.02, 150, result.MaintenanceOp{Op: result.OpCatchUp, Member: "m1", Seconds: 1.8, Distance: 16500, SnapshotSent: true,
			Clients: []result.OpWindow{{Op: "txn", Requests: 200, Errors: 150, P99: 0.02}}})}}}
	return &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "maintenance", Title: "Maintenance has a price",
		Cells: []result.Cell{
			curve(64, 0.3), curve(128, 0.55), curve(256, 1.1), curve(512, 2.1),
			policy("leader-last", "defragment, followers first and the leader last, 36s apart", result.OrderLeaderLast, true,
				round(1.0, 0, defrag("m2", 256, 1.0, 1.0, 1.0)), round(1.1, 0, defrag("m2", 256, 1.1, 1.1, 1.1))),
			policy("leader-first", "defragment, the leader first, 36s apart", result.OrderLeaderFirst, false,
				round(3.0, 4, defrag("m1", 256, 3.0, 3.0, 3.0)), round(3.1, 6, defrag("m1", 256, 3.1, 3.1, 3.1))),
			policy("openshift", "defragment, followers first and the leader last, 36s apart, when ≥ 45% fragmented and > 100 MB (OpenShift)", result.OrderLeaderLast, false, skipped),
			policy("openshift-30", "the same at 30% free", result.OrderLeaderLast, false, idle, idle),
			catchUp,
		}}}
}

// TestMaintenanceTables: the policy table sets each whole-cluster policy
// beside the base (a change beyond the rounds' spread bare, "(ns)" within
// it, "(1 round)" against one round), the curve fits the one-follower
// cells only (seconds per GiB in use), and the operations table has every
// operation and skipped member. Text golden; HTML and Markdown have the
// tables too.
func TestMaintenanceTables(t *testing.T) {
	m := newExpModel(maintenanceDoc(), Statements{})
	pol, _, ok := m.policyTable()
	if !ok || len(pol.Rows) != 4 {
		t.Fatalf("policy table %v, want four rows", pol.Rows)
	}
	want := []string{
		"leader-last *|2|2|1.05s ± 0.07s||1.15s ± 0.07s||0||1.05s ± 0.07s|0|0.01s",
		"leader-first|2|2|3.05s ± 0.07s|+190%|3.15s ± 0.07s|+174%|5 ± 1.41|+5|3.05s ± 0.07s|0|0.01s",
		"openshift|1|1 (1 skipped)|0.90s|-14% (1 round)|1.00s|-13% (1 round)|0|+0 (1 round)|0.80s|0|0.01s",
		"openshift-30|2|0 (6 skipped)|-|nothing ran|-|-|-|-|-|0|0.01s",
	}
	for i, w := range want {
		if got := strings.Join(pol.Rows[i], "|"); got != w {
			t.Errorf("policy row %d\n got %q\nwant %q", i, got, w)
		}
	}
	curve, _, ok := m.defragCurveTable()
	if !ok || len(curve.Rows) != 1 || curve.Rows[0][0] != "memory" || curve.Rows[0][1] != "4" || !strings.HasPrefix(curve.Rows[0][3], "4.13 ± 0.06") {
		t.Errorf("curve %v: want memory's four one-follower defragmentations (no policy's, no catch-up) at 4.13 s a GiB in use", curve.Rows)
	}
	ops, _, _ := m.maintenanceOpsTable()
	if len(ops.Rows) != 17 || ops.Rows[9][5] != "skipped: 30% of 250 MB free, OpenShift's trigger wants ≥ 45% of > 100 MB" || ops.Rows[16][6] != "down" {
		t.Errorf("operations %v", ops.Rows)
	}
	var b bytes.Buffer
	if err := ExperimentText(&b, maintenanceDoc(), TerminalOptions{}, Judged{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiment_maintenance.txt", b.Bytes())
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "|") && len([]rune(line)) > TermWidth {
			t.Errorf("a table line of %d columns: %s", len([]rune(line)), line)
		}
	}
	for _, f := range []func(*bytes.Buffer) error{
		func(w *bytes.Buffer) error {
			return HTML(w, []result.Named{{Name: "m", Doc: maintenanceDoc()}}, Judged{})
		},
		func(w *bytes.Buffer) error {
			return Markdown(w, []result.Named{{Name: "m", Doc: maintenanceDoc()}}, Judged{})
		},
	} {
		var h bytes.Buffer
		if err := f(&h); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(h.String(), "Maintenance policies") || !strings.Contains(h.String(), "leader-first") || !strings.Contains(h.String(), "Defragmentation time") {
			t.Errorf("a report lacks the maintenance tables:\n%.2000s", h.String())
		}
	}
}
