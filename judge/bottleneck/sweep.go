package bottleneck

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/result"
)

// Sweep says how the limit moves along the sweep in each setup,
// from the cells' statements (computed for cells that have none): which
// resource limited each setup at its highest load (Resource, or "mixed"
// when setups differ), where along the sweep it changed, each setup's
// highest throughput against the first's, and whether any cell was limited
// by its disk. nil when no cell ran.
func Sweep(doc *result.Document, o Options) *result.Bottleneck {
	exp := doc.Experiment
	sw := result.SweepOf(exp)
	stmt := func(i int) *result.Bottleneck {
		if b := exp.Cells[i].Bottleneck; b != nil {
			return b
		}
		return Cell(doc, i, o)
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
			if m := result.MeasureCell(c); m.Throughput.Mean > ll.best {
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
	case ResourceOtherCPU:
		return "the machine's CPU, taken by processes outside the run"
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
