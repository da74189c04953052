package bottleneck

import (
	"strconv"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// kneeCell is a cell of a distance sweep: one run at rps (a bench line)
// or one Kubernetes run that took ttr seconds to Ready, with leader
// changes seen by its members.
func kneeCell(workload string, rtt, rps, ttr, leaderChanges float64) result.Cell {
	x := strconv.FormatFloat(rtt, 'f', -1, 64)
	r := result.Run{Name: workload, Stats: result.Stats{Requests: 1000, ThroughputRPS: rps, DurationSeconds: 10}}
	if ttr > 0 {
		r.Kube = &result.KubeRun{TimeToReadySeconds: ttr}
	}
	if leaderChanges > 0 {
		r.Server = &result.Server{Members: []result.MemberSeries{{Name: "m1", Summary: result.ServerSummary{LeaderChanges: leaderChanges}}}}
	}
	return result.Cell{ID: "rtt-" + x + "/" + workload, Setup: "rtt-" + x, Workload: workload, Status: result.CellOK,
		Params: map[string]string{"setup": "rtt-" + x, "workload": workload, "rtt_ms": x}, Runs: []result.Run{r}}
}

// onDisk puts a distance sweep's cell on a disk: the storage param the
// setups give beside rtt_ms.
func onDisk(c result.Cell, storage string) result.Cell {
	c.Params["storage"] = storage
	c.Setup = storage + "-" + c.Setup
	c.ID = storage + "-" + c.ID
	return c
}

// TestKneesPerStorage: each disk is a line of its own, with its own knee
// against its own 0 ms, and a mark (600 km, at 14 ms in the presets'
// former model) is placed against each knee.
func TestKneesPerStorage(t *testing.T) {
	t.Parallel()
	cells := []result.Cell{
		onDisk(kneeCell("kube", 0, 50, 20, 0), "memory"), onDisk(kneeCell("kube", 14, 50, 22, 0), "memory"), onDisk(kneeCell("kube", 50, 50, 25, 0), "memory"),
		onDisk(kneeCell("kube", 0, 50, 50, 0), "hdd"), onDisk(kneeCell("kube", 14, 50, 70, 0), "hdd"), onDisk(kneeCell("kube", 50, 50, 110, 0), "hdd"),
		onDisk(kneeCell("put", 0, 40, 0, 0), "hdd"), onDisk(kneeCell("put", 14, 30, 0, 0), "hdd"), onDisk(kneeCell("put", 50, 12, 0, 0), "hdd"),
	}
	marks := []result.Mark{{Param: "rtt_ms", At: 14, Label: "600 km"}, {Param: "clients", At: 100, Label: "elsewhere"}}
	ks := Knees(&result.Experiment{KneeParam: "rtt_ms", Cells: cells, Marks: marks})
	want := []struct {
		line  string
		found bool
		says  string
	}{
		{"kube storage=memory", false, "kube storage=memory: no knee up to rtt_ms 50: time to every pod Ready 25 s there, 1.2× of 0's. At rtt_ms 14 (600 km) the line is within its knee."},
		{"kube storage=hdd", true, "kube storage=hdd: time to every pod Ready doubles between rtt_ms 14 (70 s, 1.4× of 0's) and rtt_ms 50 (110 s, 2.2×). At rtt_ms 14 (600 km) the line is still within its knee."},
		{"put storage=hdd", true, "put storage=hdd: throughput halves between rtt_ms 14 (30 req/s, 75% of 0's) and rtt_ms 50 (12 req/s, 30%). At rtt_ms 14 (600 km) the line is still within its knee."},
	}
	if len(ks) != len(want) {
		t.Fatalf("%d knees, want %d: %+v", len(ks), len(want), ks)
	}
	for i, w := range want {
		if ks[i].Line != w.line || ks[i].Found != w.found || ks[i].Statement != w.says {
			t.Errorf("knee %d: %q found %v:\n %s\nwant %q found %v:\n %s", i, ks[i].Line, ks[i].Found, ks[i].Statement, w.line, w.found, w.says)
		}
	}
	// A mark past a knee, and one between its points.
	for _, tc := range []struct {
		at   float64
		says string
	}{{50, "At rtt_ms 50 (m) the line is past its knee."}, {30, "At rtt_ms 30 (m) the line lies between its last point within the knee and its first past it."}, {200, "At rtt_ms 200 (m) nothing was measured: the line ends at rtt_ms 50."}} {
		k := result.Knee{Param: "rtt_ms", Found: tc.at != 200, LastX: 14, PastX: 50}
		if tc.at == 200 {
			k.LastX = 50
		}
		if got := placeMarks(k, []result.Mark{{Param: "rtt_ms", At: tc.at, Label: "m"}}); got != " "+tc.says {
			t.Errorf("mark at %g: %q, want %q", tc.at, got, tc.says)
		}
	}
}

func TestKnees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cells []result.Cell
		param string
		want  []string // each knee's statement contains these, in line order
		found []bool
	}{
		{
			name: "throughput halves between 20 and 50 ms; the cluster changed leader at 100",
			cells: []result.Cell{kneeCell("put", 0, 2000, 0, 0), kneeCell("put", 5, 1900, 0, 0), kneeCell("put", 20, 1500, 0, 0),
				kneeCell("put", 50, 800, 0, 0), kneeCell("put", 100, 300, 0, 3)},
			param: "rtt_ms",
			want:  []string{"put: throughput halves between rtt_ms 20 (1,500 req/s, 75% of 0's) and rtt_ms 50 (800 req/s, 40%). From rtt_ms 100 the cluster changed leader"},
			found: []bool{true},
		},
		{
			name: "time to Ready never doubles; the lines are apart and in the cells' order",
			cells: []result.Cell{kneeCell("kube", 0, 50, 10, 0), kneeCell("put", 0, 2000, 0, 0), kneeCell("kube", 50, 50, 15, 0),
				kneeCell("put", 50, 900, 0, 0), kneeCell("kube", 100, 50, 19.5, 0)},
			param: "rtt_ms",
			want:  []string{"kube: no knee up to rtt_ms 100: time to every pod Ready 19.5 s there, 1.9× of 0's.", "put: throughput halves between rtt_ms 0"},
			found: []bool{false, true},
		},
		{
			name:  "no knee param: no knees",
			cells: []result.Cell{kneeCell("put", 0, 2000, 0, 0), kneeCell("put", 50, 100, 0, 0)},
		},
		{
			name:  "one point per line: nothing to judge",
			cells: []result.Cell{kneeCell("put", 0, 2000, 0, 0), kneeCell("kube", 50, 100, 20, 0)},
			param: "rtt_ms",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ks := Knees(&result.Experiment{KneeParam: tc.param, Cells: tc.cells})
			if len(ks) != len(tc.want) {
				t.Fatalf("%d knees, want %d: %+v", len(ks), len(tc.want), ks)
			}
			for i, k := range ks {
				if !strings.Contains(k.Statement, tc.want[i]) || k.Found != tc.found[i] {
					t.Errorf("knee %d: found %v, %q; want found %v and %q", i, k.Found, k.Statement, tc.found[i], tc.want[i])
				}
			}
		})
	}
}
