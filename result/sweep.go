package result

import (
	"sort"
	"strconv"
	"strings"
)

// Sweep is how an experiment's cells line up for curves and for the
// sweep's statement: Param is the swept parameter, the numeric param whose
// value varies between cells ("clients"; "" when none does), and Lines the
// cells of each setup and workload (and any other param that varies), in
// ascending order of Param.
type Sweep struct {
	Param string
	Lines []Line
}

// Line is one setup's (and workload's) cells along the sweep.
type Line struct {
	// Name is the setup, with the workload when the experiment has
	// several, and any other varying param as k=v; when Param is one the
	// setups give (each setup one value: the distance of a distance
	// sweep), a line is a workload across the setups, named by it.
	Name string
	// Cells index Experiment.Cells; X is Param's value in each (0 when
	// Param is "").
	Cells []int
	X     []float64
}

// loadParams are the params preferred as the swept one, in order.
var loadParams = []string{"clients", "rate", "conns"} //nolint:gochecknoglobals // constant table

// SweepOf lines up exp's cells. Cells without Param's value (a disk job
// beside a client sweep) are left out of the lines.
func SweepOf(exp *Experiment) Sweep {
	values := map[string]map[string]bool{}
	numeric := map[string]bool{}
	for _, c := range exp.Cells {
		for k, v := range c.Params {
			if k == "setup" || k == "workload" {
				continue
			}
			if values[k] == nil {
				values[k] = map[string]bool{}
				numeric[k] = true
			}
			values[k][v] = true
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				numeric[k] = false
			}
		}
	}
	var cands []string
	for k := range values {
		if numeric[k] && len(values[k]) > 1 {
			cands = append(cands, k)
		}
	}
	sort.Slice(cands, func(a, b int) bool {
		ra, rb := rank(cands[a]), rank(cands[b])
		if ra != rb {
			return ra < rb
		}
		if len(values[cands[a]]) != len(values[cands[b]]) {
			return len(values[cands[a]]) > len(values[cands[b]])
		}
		return cands[a] < cands[b]
	})
	s := Sweep{}
	if len(cands) > 0 {
		s.Param = cands[0]
	}
	var varying []string
	for k := range values {
		if k != s.Param && len(values[k]) > 1 {
			varying = append(varying, k)
		}
	}
	sort.Strings(varying)
	// The workload names a line only when the lined-up cells have several.
	workloads := map[string]bool{}
	for _, c := range exp.Cells {
		if _, ok := c.Params[s.Param]; ok || s.Param == "" {
			workloads[c.Workload] = true
		}
	}
	// A param the setups give (each setup one value: a distance) lines
	// the setups up: a line is a workload across them.
	bySetup := map[string]string{}
	alongSetups := s.Param != ""
	for _, c := range exp.Cells {
		v, ok := c.Params[s.Param]
		if !ok {
			continue
		}
		if prev, seen := bySetup[c.Setup]; seen && prev != v {
			alongSetups = false
		}
		bySetup[c.Setup] = v
	}
	alongSetups = alongSetups && len(bySetup) > 1
	byName := map[string]int{}
	for i, c := range exp.Cells {
		x := 0.0
		if s.Param != "" {
			v, ok := c.Params[s.Param]
			if !ok {
				continue
			}
			x, _ = strconv.ParseFloat(v, 64)
		}
		name := c.Setup
		switch {
		case alongSetups:
			name = c.Workload
		case len(workloads) > 1:
			name = strings.TrimSpace(name + " " + c.Workload)
		}
		for _, k := range varying {
			if v, ok := c.Params[k]; ok {
				name += " " + k + "=" + v
			}
		}
		li, ok := byName[name]
		if !ok {
			li = len(s.Lines)
			byName[name] = li
			s.Lines = append(s.Lines, Line{Name: name})
		}
		s.Lines[li].Cells = append(s.Lines[li].Cells, i)
		s.Lines[li].X = append(s.Lines[li].X, x)
	}
	for li := range s.Lines {
		l := &s.Lines[li]
		sort.Stable(byX{l})
	}
	return s
}

func rank(k string) int {
	for i, p := range loadParams {
		if p == k {
			return i
		}
	}
	return len(loadParams)
}

type byX struct{ l *Line }

func (b byX) Len() int           { return len(b.l.X) }
func (b byX) Less(i, j int) bool { return b.l.X[i] < b.l.X[j] }
func (b byX) Swap(i, j int) {
	b.l.X[i], b.l.X[j] = b.l.X[j], b.l.X[i]
	b.l.Cells[i], b.l.Cells[j] = b.l.Cells[j], b.l.Cells[i]
}
