package judge

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/result"
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
	// several, and any other varying param as k=v.
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
func SweepOf(exp *result.Experiment) Sweep {
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
		if len(workloads) > 1 {
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

// SweepBottleneck says how the limit moves along the sweep in each setup,
// from the cells' statements (computed for cells that have none): which
// resource limited each setup at its highest load (Resource, or "mixed"
// when setups differ), where along the sweep it changed, each setup's
// highest throughput against the first's, and whether any cell was limited
// by its disk. nil when no cell ran.
func SweepBottleneck(doc *result.Document, o Options) *result.Bottleneck {
	exp := doc.Experiment
	sw := SweepOf(exp)
	stmt := func(i int) *result.Bottleneck {
		if b := exp.Cells[i].Bottleneck; b != nil {
			return b
		}
		return CellBottleneck(doc, i, o)
	}
	type lineLimit struct {
		name, last string
		best       float64
		bestAt     string
		parts      []string
	}
	var lines []lineLimit
	figs := map[string]float64{}
	unknowns, ran := 0, 0
	var diskSpans []string
	for _, l := range sw.Lines {
		ll := lineLimit{name: l.Name}
		prev, from, to := "", "", ""
		flush := func() {
			if prev == "" {
				return
			}
			ll.parts = append(ll.parts, strings.TrimSpace(prev+" "+span(from, to, sw.Param)))
		}
		for k, i := range l.Cells {
			c := &exp.Cells[i]
			if c.Status != result.CellOK && c.Status != result.CellInterrupted {
				continue
			}
			b := stmt(i)
			if b == nil {
				continue
			}
			ran++
			switch b.Resource {
			case ResourceUnknown:
				unknowns++
			}
			x := xLabel(l.X[k])
			if b.Resource != prev {
				flush()
				prev, from = b.Resource, x
			}
			to = x
			ll.last = b.Resource
			if m := Measure(c); m.Throughput.Mean > ll.best {
				ll.best, ll.bestAt = m.Throughput.Mean, x
			}
		}
		flush()
		for _, p := range ll.parts {
			if rest, ok := strings.CutPrefix(p, ResourceDisk); ok {
				diskSpans = append(diskSpans, strings.TrimSpace(l.Name+rest))
			}
		}
		if len(ll.parts) > 0 {
			figs["max_throughput_rps/"+ll.name] = ll.best
			lines = append(lines, ll)
		}
	}
	if ran == 0 {
		return nil
	}
	res := lines[0].last
	for _, l := range lines[1:] {
		if l.last != res {
			res = ResourceMixed
		}
	}
	var b strings.Builder
	if res == ResourceMixed {
		b.WriteString("The limit at the highest load differed between setups.")
	} else {
		fmt.Fprintf(&b, "At its highest load every setup was limited by %s.", Describe(res))
	}
	for _, l := range lines {
		fmt.Fprintf(&b, " %s: %s", l.name, strings.Join(l.parts, ", "))
		if l.best > 0 {
			fmt.Fprintf(&b, "; at most %s req/s", count(l.best))
			if sw.Param != "" {
				fmt.Fprintf(&b, " (%s %s)", l.bestAt, sw.Param)
			}
		}
		b.WriteString(".")
	}
	if len(lines) > 1 && lines[0].best > 0 {
		var parts []string
		for _, l := range lines[1:] {
			parts = append(parts, fmt.Sprintf("%s %s req/s (%+.1f%%)", l.name, count(l.best), (l.best-lines[0].best)/lines[0].best*100))
		}
		fmt.Fprintf(&b, " Highest throughput against %s (%s req/s): %s.", lines[0].name, count(lines[0].best), strings.Join(parts, ", "))
	}
	switch {
	case len(diskSpans) > 0:
		fmt.Fprintf(&b, " The disk limited %s.", strings.Join(diskSpans, "; "))
	case unknowns == 0:
		b.WriteString(" The disk limited no cell.")
	}
	if unknowns > 0 {
		fmt.Fprintf(&b, " %s could not be judged (see their statements).", plural(float64(unknowns), "cell", "cells"))
	}
	return &result.Bottleneck{Resource: res, Statement: b.String(), Figures: figs}
}

// span renders the values a resource held: "at 100 clients", "from 1,000
// to 50,000 clients"; without a param, "".
func span(from, to, param string) string {
	if param == "" {
		return ""
	}
	if from == to {
		return "at " + from + " " + param
	}
	return "from " + from + " to " + to + " " + param
}

func xLabel(x float64) string {
	if x == float64(int64(x)) {
		return humanize.Comma(int64(x))
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Describe names a resource in words: "member-cpu" is "the members' CPU".
func Describe(resource string) string {
	switch resource {
	case ResourceMemberCPU:
		return "the members' CPU"
	case ResourceClientCPU:
		return "the load generator's CPU"
	case ResourceDisk:
		return "the disk"
	case ResourceNetwork:
		return "the round trip between members"
	case ResourceQuota:
		return "the backend quota"
	case ResourceFault:
		return "a fault"
	case ResourceRateLimit:
		return "a Kubernetes component's client rate limit"
	case ResourceOverload:
		return "overload (requests timed out without a fault)"
	case ResourceNone:
		return "nothing (the load stayed below capacity)"
	case ResourceMixed:
		return "different resources"
	}
	return "an unknown resource (not enough was measured)"
}
