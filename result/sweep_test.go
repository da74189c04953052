package result

import (
	"strconv"
	"strings"
	"testing"
)

// TestSweepOf: cells line up along the swept param, a line per setup (and
// workload); along a param the setups give, a line per workload across
// the setups; a param that takes one value is no sweep.
func TestSweepOf(t *testing.T) {
	t.Parallel()
	cell := func(setup, workload string, params map[string]string) Cell {
		p := map[string]string{"setup": setup, "workload": workload}
		for k, v := range params {
			p[k] = v
		}
		return Cell{ID: setup + "/" + workload, Setup: setup, Workload: workload, Params: p}
	}
	for _, tc := range []struct {
		name  string
		cells []Cell
		param string
		lines []string // name:x,x,...
	}{
		{
			name: "clients swept in each storage",
			cells: []Cell{cell("tmpfs", "put", map[string]string{"clients": "1000"}), cell("tmpfs", "put", map[string]string{"clients": "100"}),
				cell("disk", "put", map[string]string{"clients": "100"}), cell("disk", "put", map[string]string{"clients": "1000"})},
			param: "clients",
			lines: []string{"tmpfs:100,1000", "disk:100,1000"},
		},
		{
			name: "a distance the setups give: one line per workload",
			cells: []Cell{cell("rtt-0ms", "put", map[string]string{"rtt_ms": "0"}), cell("rtt-0ms", "kube", map[string]string{"rtt_ms": "0"}),
				cell("rtt-50ms", "put", map[string]string{"rtt_ms": "50"}), cell("rtt-50ms", "kube", map[string]string{"rtt_ms": "50"}),
				cell("rtt-10ms", "put", map[string]string{"rtt_ms": "10"})},
			param: "rtt_ms",
			lines: []string{"put:0,10,50", "kube:0,50"},
		},
		{
			name:  "nothing varies numerically",
			cells: []Cell{cell("a", "put", map[string]string{"conns": "50"}), cell("b", "put", map[string]string{"conns": "50"})},
			lines: []string{"a:0", "b:0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := SweepOf(&Experiment{Cells: tc.cells})
			if s.Param != tc.param {
				t.Fatalf("param %q, want %q", s.Param, tc.param)
			}
			var got []string
			for _, l := range s.Lines {
				var xs []string
				for _, x := range l.X {
					xs = append(xs, strconv.FormatFloat(x, 'f', -1, 64))
				}
				got = append(got, l.Name+":"+strings.Join(xs, ","))
			}
			if strings.Join(got, " ") != strings.Join(tc.lines, " ") {
				t.Errorf("lines %v, want %v", got, tc.lines)
			}
		})
	}
}
