package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// runsTable is the closing table of a multi-run bench: one row per run, then
// mean ± stddev per sweep point when there were iterations.
func runsTable(doc *result.Document) string {
	var b strings.Builder
	rows := make([][]string, 0, len(doc.Runs))
	for _, r := range doc.Runs {
		rows = append(rows, []string{r.Name, strconv.FormatInt(r.Requests, 10), strconv.FormatInt(opCount(r.Stats)-r.Requests, 10),
			f1(r.ThroughputRPS), quantileMS(r, r.Latency.P50), quantileMS(r, r.Latency.P99), quantileMS(r, r.Latency.P999), ms(r.Latency.Mean)})
	}
	_ = table.Write(&b, []string{"RUN", "REQUESTS", "ERRORS", "REQ/S", "P50 MS", "P99 MS", "P99.9 MS", "MEAN MS"}, rows)
	multi := false
	for _, s := range doc.Summaries {
		multi = multi || s.Iterations > 1
	}
	if multi {
		rows = rows[:0]
		for _, s := range doc.Summaries {
			rows = append(rows, []string{s.Name, strconv.Itoa(s.Iterations), pm(s.ThroughputRPS, 1, "%.1f"), pm(s.P50, 1000, "%.3f"), pm(s.P99, 1000, "%.3f"), pm(s.Mean, 1000, "%.3f")})
		}
		b.WriteString("\nMean ± sample stddev across iterations:\n")
		_ = table.Write(&b, []string{"SWEEP POINT", "ITERATIONS", "REQ/S", "P50 MS", "P99 MS", "MEAN MS"}, rows)
	}
	return b.String()
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func ms(v float64) string { return strconv.FormatFloat(v*1000, 'f', 3, 64) }

func pm(m result.MeanSD, scale float64, f string) string {
	return fmt.Sprintf(f+" ± "+f, m.Mean*scale, m.Stddev*scale)
}

// BenchCSV writes one row per run (and per operation of mixed runs), for
// spreadsheets. Latencies are in seconds.
func BenchCSV(w io.Writer, doc *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"run", "op", "conns", "clients", "iteration", "requests", "errors", "duration_seconds", string(result.MetricThroughput),
		"min", "mean", "stddev", "max", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p99.9"})
	row := func(r result.Run, op string, s result.Stats) {
		l := s.Latency
		g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
		_ = cw.Write([]string{r.Name, op, strconv.Itoa(r.Conns), strconv.Itoa(r.Clients), strconv.Itoa(r.Iteration),
			strconv.FormatInt(s.Requests, 10), strconv.FormatInt(opCount(s)-s.Requests, 10), g(s.DurationSeconds), g(s.ThroughputRPS),
			g(l.Min), g(l.Mean), g(l.Stddev), g(l.Max), g(l.P10), g(l.P25), g(l.P50), g(l.P75), g(l.P90), g(l.P95), g(l.P99), g(l.P999)})
	}
	cmd := ""
	if doc.Bench != nil {
		cmd = doc.Bench.Command
	}
	for _, r := range doc.Runs {
		if len(r.Ops) == 0 {
			row(r, cmd, r.Stats)
		}
		for _, o := range r.Ops {
			row(r, o.Name, o.Stats)
		}
	}
	cw.Flush()
	return cw.Error()
}

func writeTable(b *strings.Builder, t Table) { _ = table.Write(b, t.Header, t.Rows) }

// quantileMS is a run's latency quantile in milliseconds, or "-" for a run
// through a real control plane: its latencies are the apiservers' means,
// and it has no quantiles.
func quantileMS(r result.Run, v float64) string {
	if r.Kube != nil && r.Kube.ControlPlane != "" {
		return "-"
	}
	return ms(v)
}
