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
