package render

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// publishedRows sets each of the article's figures beside ours, one row
// per cell it matches (a figure that matches none says so).
func publishedRows(e *result.Experiment, cells []expCell) []publishedRow {
	var rows []publishedRow
	for _, p := range e.Published {
		article := metricValue(p.Metric, p.Value)
		matched := false
		for _, c := range cells {
			if !matches(p.Match, c.Cell) {
				continue
			}
			matched = true
			ours := "not measured by etcdlab"
			if v, ok := ourValue(c, p.Metric); ok {
				ours = ourMetricValue(p.Metric, roundRate(p.Metric, v))
				switch sent := requestsPerRun(c); {
				case p.Requests > 0 && sent != p.Requests:
					ours += fmt.Sprintf(" (not comparable: %s requests per run, the article's %s)", humanize.Comma(sent), humanize.Comma(p.Requests))
				case bucketMetric(p.Metric):
					ours += " (" + bucketsApart(p.Metric, v, p.Value) + ")"
				case p.Value != 0:
					ours += " (" + pctChange((v-p.Value)/p.Value*100) + fewSamples(c.Cell, p.Metric) + ")"
				}
			} else if !c.ran() {
				ours = "did not run (" + c.Cell.Status + ")"
			}
			rows = append(rows, publishedRow{Cell: c.Cell.ID, Metric: metricName(p.Metric), Published: article, Ours: ours, Note: p.Note})
		}
		if !matched {
			rows = append(rows, publishedRow{Cell: matchLabel(p.Match), Metric: metricName(p.Metric), Published: article, Ours: "no cell matches", Note: p.Note})
		}
	}
	return rows
}

// fewSamples says, for a tail percentile read from fewer than
// fewBeyond measurements above it, how many there were: such a figure
// moves by tens of % between runs, and the row must not read as a
// property of the disk (hdd-diagnosis --quick: a p99 of 209 fdatasyncs,
// 2 above it, read 158 ms against a delay whose p99 is 268 ms).
func fewSamples(c *result.Cell, metric string) string {
	mt, ok := result.MetricOf(metric)
	if !ok || mt.Samples == nil || mt.Percentile == 0 {
		return ""
	}
	n, what, ok := mt.Samples(c)
	if !ok {
		return ""
	}
	if k := result.Beyond(n, mt.Percentile); k < fewBeyond {
		return fmt.Sprintf("; only %s of %s %s above it", humanize.Comma(k), humanize.Comma(n), what)
	}
	return ""
}

// fewBeyond is how many measurements above a tail percentile make it a
// figure rather than an anecdote: 10 (a p99 of 1,000).
const fewBeyond = 10

// requestsPerRun is how many requests each of a cell's measured runs
// sent, successful or not (their mean).
func requestsPerRun(c expCell) int64 {
	if c.M.Runs == 0 {
		return 0
	}
	return (c.M.Requests + c.M.Errors) / int64(c.M.Runs)
}

// publishedGrowth compares the article's growth with ours: for a metric
// the article gives for one workload in several setups (the multi-cloud
// article's time to Ready per scenario), each later setup against the
// first, the article's and ours side by side: seconds added for the
// duration of a whole run (result.Metric.WholeRun: a ratio would fold in
// the parts the emulation leaves out, such as the image pulls and
// container starts in the article's times), a ratio for anything else, a
// latency percentile included.
func publishedGrowth(e *result.Experiment, cells []expCell) []publishedRow {
	type point struct {
		setup   string
		article float64
		ours    float64
		ok      bool
		note    string
	}
	byKey := map[string][]point{}
	var order []string
	for _, p := range e.Published {
		setup, wl := p.Match["setup"], p.Match["workload"]
		if setup == "" || len(p.Match) != 2 || wl == "" || p.Value == 0 || !grows(p.Metric) {
			continue
		}
		key := p.Metric + "\x00" + wl
		if _, seen := byKey[key]; !seen {
			order = append(order, key)
		}
		pt := point{setup: setup, article: p.Value, note: p.Note}
		for _, c := range cells {
			if matches(p.Match, c.Cell) {
				pt.ours, pt.ok = ourValue(c, p.Metric)
			}
		}
		byKey[key] = append(byKey[key], pt)
	}
	var rows []publishedRow
	for _, key := range order {
		pts := byKey[key]
		metric, _, _ := strings.Cut(key, "\x00")
		added := wholeRun(metric)
		first := pts[0]
		for _, pt := range pts[1:] {
			ours := "not measured by etcdlab"
			var row publishedRow
			if added {
				if first.ok && pt.ok {
					ours = fmt.Sprintf("%+.1f s", pt.ours-first.ours)
				}
				row = publishedRow{Cell: pt.setup + " − " + first.setup, Metric: metricName(metric) + " (seconds added)",
					Published: fmt.Sprintf("%+.1f s", pt.article-first.article), Ours: ours, Note: pt.note}
			} else {
				if first.ok && pt.ok && first.ours > 0 {
					ours = fmt.Sprintf("%.2f", pt.ours/first.ours)
				}
				row = publishedRow{Cell: pt.setup + " / " + first.setup, Metric: metricName(metric) + " (ratio)",
					Published: fmt.Sprintf("%.2f", pt.article/first.article), Ours: ours, Note: pt.note}
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// grows reports whether a metric's change between setups reads as a
// ratio or seconds added: not a bucket label (the buckets apart say it)
// nor a count of slow applies (an article's count over a whole deployment
// has no ratio to a run's).
func grows(metric string) bool {
	mt, ok := result.MetricOf(metric)
	return ok && (mt.Form == result.FormValue || mt.Form == result.FormPercentile)
}

// bucketMetric reports whether a metric is a histogram bucket's label.
func bucketMetric(metric string) bool {
	mt, ok := result.MetricOf(metric)
	return ok && mt.Form == result.FormBucket && len(mt.Bounds) > 0
}

// bucketsApart says how many of the metric's buckets ours lies from the
// article's: "same bucket", "1 bucket above", "2 buckets below".
func bucketsApart(metric string, ours, article float64) string {
	mt, _ := result.MetricOf(metric)
	d := bucketIndex(mt.Bounds, ours) - bucketIndex(mt.Bounds, article)
	switch {
	case d == 0:
		return "same bucket"
	case d == 1:
		return "1 bucket above"
	case d == -1:
		return "1 bucket below"
	case d > 0:
		return fmt.Sprintf("%d buckets above", d)
	}
	return fmt.Sprintf("%d buckets below", -d)
}

// bucketIndex is the index of the bound nearest v (by ratio: a label
// parsed from text may differ from the computed bound in its last bit).
func bucketIndex(bounds []float64, v float64) int {
	best, bestD := 0, math.Inf(1)
	for i, b := range bounds {
		if d := math.Abs(math.Log(v / b)); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// matches reports whether a published figure's Match selects c: "cell"
// (or "id") is the cell's ID, "setup" and "workload" its matrix entries,
// any other key one of its params.
func matches(match map[string]string, c *result.Cell) bool {
	if len(match) == 0 {
		return false
	}
	for k, v := range match {
		var got string
		switch k {
		case "cell", "id":
			got = c.ID
		case "setup":
			got = c.Setup
		case "workload":
			got = c.Workload
		default:
			got = c.Params[k]
		}
		if got != v {
			return false
		}
	}
	return true
}

func matchLabel(match map[string]string) string {
	keys := make([]string, 0, len(match))
	for k := range match {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+match[k])
	}
	return strings.Join(parts, " ")
}

// ourValue is a cell's figure for a published metric, as the metrics
// table takes it (result.Metrics: the summary's mean for throughput, p50
// and p99, the mean over its measured runs for other latencies and the
// total time, the disk job's for a disk cell); false for a metric the
// table does not have.
func ourValue(c expCell, metric string) (float64, bool) {
	mt, ok := result.MetricOf(metric)
	if !ok {
		return 0, false
	}
	return mt.Of(c.Cell, &c.M)
}

// metricName names a published metric for people.
func metricName(metric string) string {
	if mt, ok := result.MetricOf(metric); ok {
		return mt.What
	}
	return metric
}

// roundRate rounds our rates as reports show them (round1); published
// figures keep the article's precision.
func roundRate(metric string, v float64) float64 {
	if unitOf(metric) == result.UnitRate {
		return round1(v)
	}
	return v
}

// unitOf is a metric's unit, "" for a metric the table does not have.
// wholeRun reports whether metric is the duration of a whole run
// (result.Metric.WholeRun), the only figure a difference in seconds is
// shown for.
func wholeRun(metric string) bool {
	mt, _ := result.MetricOf(metric)
	return mt.WholeRun
}

func unitOf(metric string) string {
	mt, _ := result.MetricOf(metric)
	return mt.Unit
}

// pctChange renders a change in percent: one decimal below 10%.
func pctChange(p float64) string {
	if p > -10 && p < 10 {
		return fmt.Sprintf("%+.1f%%", p)
	}
	return fmt.Sprintf("%+.0f%%", p)
}

// metricValue renders a value in its metric's unit.
func metricValue(metric string, v float64) string {
	switch unitOf(metric) {
	case result.UnitRate:
		return humanize.Commaf(v) + " " + result.UnitRate
	case result.UnitSeconds:
		return units.Seconds(v)
	case result.UnitCount:
		return humanize.Commaf(math.Round(v*10) / 10)
	}
	return fmt.Sprintf("%.4g", v)
}

// ourMetricValue renders our value in its metric's unit, a server
// quantile in etcd's lowest bucket as "≤ bound" (all its histogram says).
func ourMetricValue(metric string, v float64) string {
	if mt, ok := result.MetricOf(metric); ok && mt.Floor > 0 {
		return units.Quantile(v, mt.Floor)
	}
	return metricValue(metric, v)
}

// varyingParams are the params whose value differs between the cells
// that ran (a param all share tells the pairs nothing).
func varyingParams(cells []expCell) map[string]bool {
	vals := map[string]map[string]bool{}
	for _, c := range cells {
		if !c.ran() {
			continue
		}
		for k, v := range c.Cell.Params {
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
			vals[k][v] = true
		}
	}
	out := map[string]bool{}
	for k, vs := range vals {
		out[k] = len(vs) > 1
	}
	return out
}

// pairKey is what two cells must share to be compared across dim: the
// other matrix entry and every param but dim, as far as they vary
// (varying["setup"] and varying["workload"] say whether the matrix
// entries do). "" when nothing varies but dim.
func pairKey(c *result.Cell, dim string, varying map[string]bool) string {
	var parts []string
	if dim == "setup" && varying["workload"] {
		parts = append(parts, c.Workload)
	}
	if dim == "workload" && varying["setup"] {
		parts = append(parts, c.Setup)
	}
	keys := make([]string, 0, len(c.Params))
	for k := range c.Params {
		if k != "setup" && k != "workload" && varying[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+c.Params[k])
	}
	return strings.Join(parts, " ")
}

// spread renders a mean with its sample standard deviation.
func spread(unit string, m result.MeanSD, n int) string {
	v := func(x float64) string {
		if unit == "s" {
			return zeroOr(x)
		}
		return humanize.Commaf(round1(x))
	}
	if n > 1 {
		return v(m.Mean) + " ± " + v(m.Stddev)
	}
	return v(m.Mean)
}

// diskTable lists the disk jobs of the experiment's disk cells.
func (m expModel) diskTable() (Table, bool) {
	t := Table{Header: []string{"cell", "job", "IOPS", "sync p50", "sync p99", "sync p99.9"}}
	for _, c := range m.Cells {
		if c.Cell.Disk == nil {
			continue
		}
		for _, j := range c.Cell.Disk.Jobs {
			t.Rows = append(t.Rows, []string{c.Cell.ID, j.Name, fmt.Sprintf("%.0f", j.IOPS), secOrDash(j.SyncLatency.At(50)), secOrDash(j.SyncLatency.At(99)), secOrDash(j.SyncLatency.At(99.9))})
		}
	}
	return t, len(t.Rows) > 0
}

// verdictsTable lists the verdicts of every cell that has some (disk
// jobs, checks).
func (m expModel) verdictsTable() (Table, bool) {
	t := Table{Header: []string{"cell", "verdict", "measured", "value", "threshold", "source"}}
	for _, c := range m.Cells {
		for _, v := range c.Cell.Verdicts {
			t.Rows = append(t.Rows, []string{c.Cell.ID, v.Status, v.What, v.Display, v.Threshold, v.Source})
		}
	}
	return t, len(t.Rows) > 0
}
