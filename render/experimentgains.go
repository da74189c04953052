package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// gainTable is one % table of an experiment's report: every cell whose
// value along Dim is not Base against the cell alike in everything else
// whose value is Base, each side's mean ± spread across iterations, the
// change and whether it exceeds the spread (result/compare's rule), and
// the article's change for the same pair where it published both sides.
type gainTable struct {
	Dim, Base string
	// Others are the values compared with Base, in the cells' order.
	Others []string
	Rows   []gainRow
	// Article says some row has the article's change.
	Article bool
}

// gainRow is one figure of one pair.
type gainRow struct {
	compare.Row
	Other string
	A, B  string // mean ± stddev
	// Change is the change as shown: % for rates and latencies; for a
	// time to Ready, the seconds added and the %.
	Change string
	// ArticleChange is the article's change for the same pair and
	// metric, one per published pair ("+45.6% (AWS m5.xlarge)").
	ArticleChange string
}

// gainMetric is a figure the % tables compare, with the published
// metrics that are the same figure.
type gainMetric struct {
	name, unit string
	higher     bool
	added      bool // shown as seconds added
	published  []string
	value      func(c expCell) (result.MeanSD, bool)
}

// gainMetrics are the metrics table's rows that have a spread across
// iterations (result.Metric.Spread), in its order. The duration of a
// whole run (result.Metric.WholeRun: a time to Ready) is shown as the
// seconds added: the parts the emulation leaves out (image
// pulls, container starts) add a constant, not a factor.
func gainMetrics() []gainMetric {
	var out []gainMetric
	for _, mt := range result.Metrics() {
		if mt.Spread == nil {
			continue
		}
		out = append(out, gainMetric{name: mt.What, unit: mt.Unit, higher: mt.Better == result.HigherIsBetter,
			added: mt.WholeRun, published: mt.Names(),
			value: func(c expCell) (result.MeanSD, bool) { return mt.Spread(c.Cell, &c.M) }})
	}
	return out
}

// gainTables are the report's % tables: one per comparison the
// experiment declares, or, when it declares none, one along the only
// dimension (setup, else workload) that has exactly two values.
func gainTables(e *result.Experiment, cells []expCell) []*gainTable {
	cmps := e.Compare
	if len(cmps) == 0 {
		dims := map[string][]string{}
		for _, c := range cells {
			if c.ran() {
				for dim, v := range map[string]string{"setup": c.Cell.Setup, "workload": c.Cell.Workload} {
					if !slices.Contains(dims[dim], v) {
						dims[dim] = append(dims[dim], v)
					}
				}
			}
		}
		switch {
		case len(dims["setup"]) == 2:
			cmps = []result.Comparison{{Along: "setup", Base: dims["setup"][0]}}
		case len(dims["workload"]) == 2:
			cmps = []result.Comparison{{Along: "workload", Base: dims["workload"][0]}}
		}
	}
	var out []*gainTable
	for _, cmp := range cmps {
		if g := gainsAlong(e, cells, cmp); g != nil {
			out = append(out, g)
		}
	}
	return out
}

// along is a cell's value along dim.
func along(c *result.Cell, dim string) string {
	switch dim {
	case "setup":
		return c.Setup
	case "workload":
		return c.Workload
	}
	return c.Params[dim]
}

// gainsAlong is one comparison's table; nil when no pair ran.
func gainsAlong(e *result.Experiment, cells []expCell, cmp result.Comparison) *gainTable {
	dim := cmp.Along
	g := &gainTable{Dim: dim, Base: cmp.Base}
	varying := varyingParams(cells)
	setups, workloads := map[string]bool{}, map[string]bool{}
	for _, c := range cells {
		if c.ran() {
			setups[c.Cell.Setup], workloads[c.Cell.Workload] = true, true
		}
	}
	varying["setup"], varying["workload"] = len(setups) > 1, len(workloads) > 1
	// A param each setup gives one value (its member_cores) is the setup:
	// it names no pair, and along setup it differs with the setup; along
	// such a param, the setups differ with it.
	sp := setupParams(cells)
	held := map[string]bool{}
	for k := range sp {
		held[k] = varying[k] && k != dim
		varying[k] = false
	}
	keyDim := dim
	if sp[dim] {
		// Along a setup's param, the setups' other params that vary are
		// held like with like: the HDD at 17.6 ms against the HDD at 0 ms,
		// not memory at 0 ms; today's etcd at 0.4 cores against today's
		// at 0.2.
		keyDim = "setup"
		maps.Copy(varying, held)
	}
	key := func(c *result.Cell) string { return pairKeyAlong(c, keyDim, varying) }
	for _, b := range cells {
		other := along(b.Cell, dim)
		if !b.ran() || other == cmp.Base {
			continue
		}
		for _, a := range cells {
			if !a.ran() || along(a.Cell, dim) != cmp.Base || key(a.Cell) != key(b.Cell) {
				continue
			}
			point := key(a.Cell)
			if point == "" {
				point = "-"
			}
			for _, mt := range gainMetrics() {
				va, okA := mt.value(a)
				vb, okB := mt.value(b)
				if !okA || !okB {
					continue
				}
				na, nb := a.M.Iterations, b.M.Iterations
				if mt.added {
					na, nb = readyIterations(a.Cell), readyIterations(b.Cell)
				}
				r := compare.Change(point, mt.name, mt.unit, va, vb, na, nb, mt.higher)
				row := gainRow{Row: r, Other: other, A: spread(mt.unit, va, na), B: spread(mt.unit, vb, nb), Change: fmt.Sprintf("%+.1f%%", r.ChangePct)}
				if mt.added {
					row.Change = fmt.Sprintf("%+.1f s (%+.1f%%)", vb.Mean-va.Mean, r.ChangePct)
				}
				row.ArticleChange = articleChange(e.Published, a.Cell, b.Cell, mt)
				g.Article = g.Article || row.ArticleChange != ""
				g.Rows = append(g.Rows, row)
			}
			if !slices.Contains(g.Others, other) {
				g.Others = append(g.Others, other)
			}
			break
		}
	}
	if len(g.Rows) == 0 {
		return nil
	}
	return g
}

// setupParams are the params that take one value in each setup's cells
// (a setup's params: its member_cores, its rtt_ms).
func setupParams(cells []expCell) map[string]bool {
	perSetup := map[string]map[string]string{}
	out := map[string]bool{}
	for _, c := range cells {
		for k := range c.Cell.Params {
			if k != "setup" && k != "workload" {
				out[k] = true
			}
		}
	}
	for _, c := range cells {
		seen := perSetup[c.Cell.Setup]
		if seen == nil {
			seen = map[string]string{}
			perSetup[c.Cell.Setup] = seen
		}
		for k := range out {
			v, ok := c.Cell.Params[k]
			if !ok {
				delete(out, k)
				continue
			}
			if prev, had := seen[k]; had && prev != v {
				delete(out, k)
			}
			seen[k] = v
		}
	}
	return out
}

// readyIterations counts a kube cell's runs that reached Ready.
func readyIterations(c *result.Cell) int {
	n := 0
	for _, r := range c.Runs {
		if r.Kube != nil && r.Kube.TimeToReadySeconds > 0 {
			n++
		}
	}
	return n
}

// pairKeyAlong is pairKey for any dimension: the matrix entries other
// than dim, as far as they vary, and every varying param but dim.
func pairKeyAlong(c *result.Cell, dim string, varying map[string]bool) string {
	if dim == "setup" || dim == "workload" {
		return pairKey(c, dim, varying)
	}
	v := map[string]bool{}
	for k, x := range varying {
		v[k] = x && k != dim
	}
	var parts []string
	if v["setup"] {
		parts = append(parts, c.Setup)
	}
	if v["workload"] {
		parts = append(parts, c.Workload)
	}
	if rest := pairKey(c, "", v); rest != "" {
		parts = append(parts, rest)
	}
	return strings.Join(parts, " ")
}

// articleChange is the article's change between the published figures
// that match a and b for the same metric and the same series (one
// machine family, one scenario set: Published.Series, else its note): "+45.6% (AWS m5.xlarge)", one per pair.
func articleChange(pubs []result.Published, a, b *result.Cell, mt gainMetric) string {
	var parts []string
	for _, pa := range pubs {
		if !slices.Contains(mt.published, pa.Metric) || !matches(pa.Match, a) || pa.Value == 0 {
			continue
		}
		for _, pb := range pubs {
			if pb.Metric != pa.Metric || pubSeries(pb) != pubSeries(pa) || !matches(pb.Match, b) {
				continue
			}
			pct := (pb.Value - pa.Value) / pa.Value * 100
			ch := fmt.Sprintf("%+.1f%%", pct)
			if mt.added {
				ch = fmt.Sprintf("%+.1f s (%+.1f%%)", pb.Value-pa.Value, pct)
			}
			if n := pa.Series; n != "" {
				ch += " (" + n + ")"
			} else if n := shortNote(pa.Note); n != "" {
				ch += " (" + n + ")"
			}
			parts = append(parts, ch)
		}
	}
	return strings.Join(parts, ", ")
}

// pubSeries is the article's line a published figure belongs to: its
// Series, else its Note.
func pubSeries(p result.Published) string {
	if p.Series != "" {
		return p.Series
	}
	return p.Note
}

// shortNote is a published figure's note up to its first parenthesis or
// comma: the machine type ("AWS m5.xlarge").
func shortNote(note string) string {
	if i := strings.IndexAny(note, "(,;:"); i >= 0 {
		note = note[:i]
	}
	note = strings.TrimSpace(note)
	if len(note) > 40 {
		return ""
	}
	return note
}

func (g *gainTable) table() Table {
	var t Table
	single := len(g.Others) == 1
	if single {
		t.Header = []string{"point", "metric", g.Base, g.Others[0], "change", "", "beyond spread"}
	} else {
		t.Header = []string{"point", g.Dim, "metric", g.Base, "value", "change", "", "beyond spread"}
	}
	if g.Article {
		t.Header = append(t.Header, "the article's change")
	}
	for _, r := range g.Rows {
		row := []string{r.Point}
		if !single {
			row = append(row, r.Other)
		}
		row = append(row, r.Metric, r.A, r.B, r.Change, betterWord(r.Better), sigWord(r.Significant))
		if g.Article {
			a := r.ArticleChange
			if a == "" {
				a = "-"
			}
			row = append(row, a)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func (g *gainTable) title() string {
	if len(g.Others) == 1 {
		return fmt.Sprintf("%s against %s (%s), mean ± sample stddev across iterations", g.Others[0], g.Base, g.Dim)
	}
	return fmt.Sprintf("each %s against %s, mean ± sample stddev across iterations", g.Dim, g.Base)
}
