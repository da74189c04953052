package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// writeExperimentSummary prints an experiment result as a plain table, a
// line per cell, and the article's figures beside ours where a cell's
// summary has the same metric. It stands in until render has experiment
// reports (issue 14 point 3).
func writeExperimentSummary(w io.Writer, doc *result.Document) error {
	e := doc.Experiment
	var b strings.Builder
	counts := map[string]int{}
	for _, c := range e.Cells {
		counts[c.Status]++
	}
	var states []string
	for _, s := range []string{result.CellOK, result.CellFailed, result.CellInterrupted, result.CellPending} {
		if counts[s] > 0 {
			states = append(states, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(&b, "experiment %s, profile %s: %d cells, %s\n", e.Name, e.Profile, len(e.Cells), strings.Join(states, ", "))
	if e.Title != "" {
		fmt.Fprintf(&b, "%s\n", e.Title)
	}
	if e.Partial != "" {
		fmt.Fprintf(&b, "PARTIAL (%s): --resume continues it\n", e.Partial)
	}
	b.WriteByte('\n')
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tSTATUS\tRESULT\tFAULTS")
	for _, c := range e.Cells {
		res := cellFigures(&c)
		if c.Error != "" {
			res = c.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.ID, c.Status, res, faultSummary(c.Faults))
	}
	_ = tw.Flush()
	if len(e.Published) > 0 {
		b.WriteString("\nthe article's figures beside ours:\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  MATCH\tMETRIC\tARTICLE\tOURS\tWHAT DIFFERS")
		for _, p := range e.Published {
			ours := "-"
			if v, ok := oursFor(e.Cells, p); ok {
				ours = metricText(p.Metric, v)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", matchText(p.Match), p.Metric, metricText(p.Metric, p.Value), ours, p.Note)
		}
		_ = tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cellFigures is a cell's headline: throughput and latency of a bench
// cell (mean over iterations), the p99 sync and IOPS of a disk cell, the
// verdict of a check.
func cellFigures(c *result.Cell) string {
	switch {
	case c.Disk != nil && len(c.Disk.Jobs) > 0:
		j := c.Disk.Jobs[0]
		s := fmt.Sprintf("%s IOPS", units.Count(j.IOPS))
		if j.SyncLatency != nil {
			s = fmt.Sprintf("sync p99 %s, %s", units.Seconds(j.SyncLatency.At(99)), s)
		}
		return s + ", " + result.Overall(c.Verdicts)
	case c.Check != nil:
		bad := map[string][]string{}
		for _, v := range c.Verdicts {
			if v.Status == result.Fail || v.Status == result.Warn {
				what, _, _ := strings.Cut(v.What, " (")
				bad[v.Status] = append(bad[v.Status], what)
			}
		}
		s := result.Overall(c.Verdicts)
		for _, st := range []string{result.Fail, result.Warn} {
			if len(bad[st]) > 0 {
				s += fmt.Sprintf("; %s: %s", st, strings.Join(bad[st], ", "))
			}
		}
		return s
	case len(c.Summaries) > 0:
		var parts []string
		for _, s := range c.Summaries {
			p := fmt.Sprintf("%s req/s, p50 %s, p99 %s", units.Count(s.ThroughputRPS.Mean), units.Seconds(s.P50.Mean), units.Seconds(s.P99.Mean))
			if s.Iterations > 1 {
				p = fmt.Sprintf("%s ± %s req/s, p50 %s, p99 %s (%d iterations)", units.Count(s.ThroughputRPS.Mean), units.Count(s.ThroughputRPS.Stddev),
					units.Seconds(s.P50.Mean), units.Seconds(s.P99.Mean), s.Iterations)
			}
			parts = append(parts, p)
		}
		return strings.Join(parts, "; ") + errorsText(c.Runs)
	case len(c.Runs) > 0:
		r := c.Runs[0]
		return fmt.Sprintf("%s req/s, p50 %s, p99 %s", units.Count(r.ThroughputRPS), units.Seconds(r.Latency.P50), units.Seconds(r.Latency.P99)) + errorsText(c.Runs)
	}
	return ""
}

// errorsText says how many requests of the runs failed, and the commonest
// reason: ", 242390 errors (etcdserver: too many requests)".
func errorsText(runs []result.Run) string {
	var n int64
	reasons := map[string]int64{}
	for _, r := range runs {
		for _, v := range r.Errors {
			n += v
		}
		for m, v := range r.ErrorMessages {
			reasons[m] += v
		}
	}
	if n == 0 {
		return ""
	}
	top, most := "", int64(0)
	for m, v := range reasons {
		if v > most || (v == most && m < top) {
			top, most = m, v
		}
	}
	if top == "" {
		return fmt.Sprintf(", %d errors", n)
	}
	return fmt.Sprintf(", %d errors (most: %s)", n, top)
}

func faultSummary(fs []result.FaultEvent) string {
	var parts []string
	for _, f := range fs {
		s := fmt.Sprintf("%gs %s %s", f.AtSeconds, f.Action, f.Target)
		switch {
		case f.Error != "":
			s += " (" + f.Error + ")"
		case f.NewLeaderSeconds > 0:
			s += fmt.Sprintf(" (new leader after %.2fs)", f.NewLeaderSeconds)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// oursFor is our value of a published figure's metric: the mean over the
// ok cells it matches, from their runs (bench metrics) or disk jobs.
func oursFor(cells []result.Cell, p result.Published) (float64, bool) {
	var sum float64
	n := 0
	for _, c := range cells {
		if c.Status != result.CellOK || !matches(c.Params, p.Match) {
			continue
		}
		for _, r := range c.Runs {
			if v, ok := runMetric(r, p.Metric); ok {
				sum += v
				n++
			}
		}
		if c.Disk != nil && len(c.Disk.Jobs) > 0 {
			j := c.Disk.Jobs[0]
			switch {
			case p.Metric == "fsync_p99_seconds" && j.SyncLatency != nil:
				sum, n = sum+j.SyncLatency.At(99), n+1
			case p.Metric == "fsync_iops":
				sum, n = sum+j.IOPS, n+1
			}
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

func matches(params, match map[string]string) bool {
	for k, v := range match {
		if params[k] != v {
			return false
		}
	}
	return true
}

// runMetric is a bench run's value of a published metric.
func runMetric(r result.Run, metric string) (float64, bool) {
	l := r.Latency
	v, ok := map[string]float64{
		"throughput_rps": r.ThroughputRPS, "total_seconds": r.DurationSeconds, "avg_seconds": l.Mean,
		"p10_seconds": l.P10, "p25_seconds": l.P25, "p50_seconds": l.P50, "p75_seconds": l.P75,
		"p90_seconds": l.P90, "p95_seconds": l.P95, "p99_seconds": l.P99, "p999_seconds": l.P999,
	}[metric]
	return v, ok
}

func matchText(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+"="+m[k])
	}
	return strings.Join(parts, ",")
}

func metricText(metric string, v float64) string {
	if strings.HasSuffix(metric, "_seconds") {
		return units.Seconds(v)
	}
	return units.Count(v)
}
