// Package compare sets result documents side by side: per metric, both
// values, the change in percent, whether it is better or worse (throughput
// up is better, latency down is better) and, when both sides ran several
// iterations, whether the difference is larger than the run-to-run spread.
// Experiments are compared cell by cell, matched by cell ID.
package compare

import (
	"fmt"
	"math"

	"github.com/etcdlab/etcdlab/result"
)

// Row is one metric compared.
type Row struct {
	Point     string  `json:"point"` // the sweep point or job it belongs to
	Metric    string  `json:"metric"`
	Unit      string  `json:"unit"`
	Base      float64 `json:"base"`
	Other     float64 `json:"other"`
	ChangePct float64 `json:"change_pct"` // (other - base) / base * 100
	// Better is +1 when the change is an improvement, -1 when it is worse,
	// 0 when there is no change.
	Better int `json:"better"`
	// Significant is set when both sides have a spread (iterations): true
	// when the difference exceeds twice the standard error of the
	// difference (about a 95% interval).
	Significant *bool `json:"significant,omitempty"`
}

// Comparison is a base document against one other.
type Comparison struct {
	Base  string `json:"base"`
	Other string `json:"other"`
	Kind  string `json:"kind"`
	Rows  []Row  `json:"rows"`
	// Unmatched says what could not be compared and why (experiments:
	// cells only one side has, or that did not run on both).
	Unmatched []string `json:"unmatched,omitempty"`
}

// Compare compares base with each of others. Documents of different kinds
// cannot be compared.
func Compare(base result.Named, others ...result.Named) ([]Comparison, error) {
	if len(others) == 0 {
		return nil, fmt.Errorf("compare needs a base and at least one other result")
	}
	out := make([]Comparison, 0, len(others))
	for _, o := range others {
		if o.Doc.Kind != base.Doc.Kind {
			return nil, fmt.Errorf("cannot compare a %s result (%s) with a %s result (%s)", base.Doc.Kind, base.Name, o.Doc.Kind, o.Name)
		}
		c := Comparison{Base: base.Name, Other: o.Name, Kind: base.Doc.Kind}
		switch base.Doc.Kind {
		case result.KindBench:
			c.Rows = benchRows(base.Doc, o.Doc)
		case result.KindDisk:
			c.Rows = diskRows(base.Doc, o.Doc)
		case result.KindExperiment:
			c.Rows, c.Unmatched = experimentRows(base.Doc, o.Doc)
		}
		if len(c.Rows) == 0 {
			return nil, fmt.Errorf("%s and %s have no measurement in common", base.Name, o.Name)
		}
		out = append(out, c)
	}
	return out, nil
}

// Change compares two means with their spread across n1 and n2
// iterations, as every row of a comparison does; higherBetter says which
// direction is good. Reports use it for tables of their own (one
// experiment's two setups).
func Change(point, metric, unit string, base, other result.MeanSD, n1, n2 int, higherBetter bool) Row {
	return row(point, metric, unit, base, other, n1, n2, higherBetter)
}

// row builds a row; higherBetter says which direction is good.
func row(point, metric, unit string, base, other result.MeanSD, n1, n2 int, higherBetter bool) Row {
	r := Row{Point: point, Metric: metric, Unit: unit, Base: base.Mean, Other: other.Mean}
	if base.Mean != 0 {
		r.ChangePct = (other.Mean - base.Mean) / math.Abs(base.Mean) * 100
	}
	switch d := other.Mean - base.Mean; {
	case d == 0:
	case (d > 0) == higherBetter:
		r.Better = 1
	default:
		r.Better = -1
	}
	if n1 > 1 && n2 > 1 {
		se := math.Sqrt(base.Stddev*base.Stddev/float64(n1) + other.Stddev*other.Stddev/float64(n2))
		sig := math.Abs(other.Mean-base.Mean) > 2*se
		r.Significant = &sig
	}
	return r
}

// benchRows compares sweep points present in both documents (matched by
// command, conns and clients; a single point on each side is matched
// whatever its size).
func benchRows(a, b *result.Document) []Row {
	sa, sb := Points(a), Points(b)
	var rows []Row
	for _, p := range sa {
		q, ok := match(p, sb, len(sa) == 1 && len(sb) == 1)
		if !ok {
			continue
		}
		of := func(n result.MetricName, a, b result.MeanSD) Row {
			mt := n.Metric()
			return row(p.Name, mt.What, mt.Unit, a, b, p.Iterations, q.Iterations, mt.Better == result.HigherIsBetter)
		}
		rows = append(rows,
			of(result.MetricThroughput, p.ThroughputRPS, q.ThroughputRPS),
			of(result.MetricLatencyP50, p.P50, q.P50),
			of(result.MetricLatencyP99, p.P99, q.P99),
			of(result.MetricLatencyMean, p.Mean, q.Mean),
		)
	}
	return rows
}

func match(p result.Summary, in []result.Summary, any bool) (result.Summary, bool) {
	if any {
		return in[0], true
	}
	for _, q := range in {
		if q.Conns == p.Conns && q.Clients == p.Clients {
			return q, true
		}
	}
	return result.Summary{}, false
}

// Points returns a document's sweep points, computing them from the runs
// when the document has no summaries.
func Points(d *result.Document) []result.Summary {
	if len(d.Summaries) > 0 {
		return d.Summaries
	}
	out := make([]result.Summary, 0, len(d.Runs))
	for _, r := range d.Runs {
		out = append(out, result.Summary{Name: r.Name, Conns: r.Conns, Clients: r.Clients, Iterations: 1,
			ThroughputRPS: result.MeanSD{Mean: r.ThroughputRPS}, P50: result.MeanSD{Mean: r.Latency.P50},
			P99: result.MeanSD{Mean: r.Latency.P99}, Mean: result.MeanSD{Mean: r.Latency.Mean}})
	}
	return out
}

// diskRows compares the main jobs of two disk results.
func diskRows(a, b *result.Document) []Row {
	if a.Disk == nil || b.Disk == nil || len(a.Disk.Jobs) == 0 || len(b.Disk.Jobs) == 0 {
		return nil
	}
	ja, jb := a.Disk.Jobs[0], b.Disk.Jobs[0]
	m := func(v float64) result.MeanSD { return result.MeanSD{Mean: v} }
	rows := []Row{row(ja.Name, "IOPS", "IOPS", m(ja.IOPS), m(jb.IOPS), 1, 1, true)}
	for _, p := range []float64{50, 99, 99.9} {
		rows = append(rows, row(ja.Name, fmt.Sprintf("%s p%g", ja.Sync, p), "s", m(ja.SyncLatency.At(p)), m(jb.SyncLatency.At(p)), 1, 1, false))
	}
	return rows
}
