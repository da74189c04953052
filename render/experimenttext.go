package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// ExperimentText writes an experiment result for a terminal: what it
// reproduces, one line per cell (throughput, p50, p99, the members' CPU,
// WAL fsync p99 and the limit), the bottleneck statements, the article's
// figures beside ours with what differs, the two-way % table when the
// experiment compares two setups, and the cells that failed or did not
// run. Unless o.Wide, lines stay within TermWidth columns.
func ExperimentText(w io.Writer, doc *result.Document, o TerminalOptions, j Judged) error {
	if doc.Experiment == nil {
		return fmt.Errorf("not an experiment result (kind %q)", doc.Kind)
	}
	m := newExpModel(doc, j.Statements[doc])
	var b strings.Builder
	for _, r := range m.envRows() {
		o.prose(&b, r[0]+": ", r[1], "  ")
	}
	b.WriteString("\n")
	incidents, score, hasIncidents := m.incidentsTable()
	rows := make([][]string, 0, len(m.Cells))
	for _, c := range m.Cells {
		if c.Cell.Incident != nil || (hasIncidents && c.Cell.Status == result.CellSkipped) {
			continue // in the confusion table
		}
		row := []string{c.Cell.ID, c.Cell.Status}
		switch {
		case !c.ran():
			row = append(row, dashes(5)...)
		case c.M.ServerRuns == 0:
			row = append(row, rps(c.M), units.Seconds(c.M.P50.Mean), units.Seconds(c.M.P99.Mean), "-", "-")
		default:
			row = append(row, rps(c.M), units.Seconds(c.M.P50.Mean), units.Seconds(c.M.P99.Mean), fmt.Sprintf("%.2f", c.M.MemberCPUCores), quantile(c.M.WALFsyncP99, result.LowestDiskBucket))
		}
		rows = append(rows, append(row, limit(c.Bottleneck)))
	}
	if len(rows) > 0 {
		o.table(&b, []string{"CELL", "STATUS", "REQ/S", "P50", "P99", "CPU CORES", "FSYNC P99", "LIMIT"}, rows)
	}
	if t, notes, ok := m.upgradesTable(); ok {
		b.WriteString("rolling upgrades (each member replaced):\n")
		o.table(&b, upper(t.Header), t.Rows)
		for _, n := range notes {
			o.prose(&b, "", n, "  ")
		}
	}
	if hasIncidents {
		b.WriteString("incidents (the doctor's confusion table):\n")
		o.table(&b, upper(incidents.Header), incidents.Rows)
		o.prose(&b, "", score, "  ")
	}
	if t, ok := m.diskTable(); ok {
		b.WriteString("\ndisk jobs:\n")
		o.table(&b, upper(t.Header), t.Rows)
	}
	if t, ok := m.replayTable(); ok {
		b.WriteString("\nreplays (each figure of the profile beside the candidate's, docs/profiles.md):\n")
		o.table(&b, upper(t.Header), t.Rows)
	}
	if t, notes, ok := m.sizingTable(); ok {
		b.WriteString("\nsizing (etcdlab's answer beside etcd's hardware guide, docs/sizing.md):\n")
		o.table(&b, upper(t.Header), t.Rows)
		for _, n := range notes {
			o.prose(&b, "", n, "    ")
		}
	}
	for _, sec := range []struct {
		title string
		make  func() (Table, []string, bool)
	}{
		{"maintenance policies (what clients saw, beside the base policy's, docs/maintenance.md)", m.policyTable},
		{"defragmentation time against the data in use", m.defragCurveTable},
		{"maintenance operations", m.maintenanceOpsTable},
	} {
		if t, notes, ok := sec.make(); ok {
			b.WriteString("\n" + sec.title + ":\n")
			o.table(&b, upper(t.Header), t.Rows)
			for _, n := range notes {
				o.prose(&b, "", n, "    ")
			}
		}
	}
	if t, ok := m.verdictsTable(); ok {
		b.WriteString("\nverdicts:\n")
		o.table(&b, upper(t.Header), t.Rows)
	}
	if m.Overall != nil {
		b.WriteString("\n")
		o.prose(&b, "whole sweep: ", m.Overall.Statement, "  ")
	}
	for _, k := range m.Knees {
		o.prose(&b, "knee: ", k.Statement, "  ")
	}
	for _, c := range m.Cells {
		if c.Bottleneck != nil && c.ran() {
			o.prose(&b, c.Cell.ID+": ", c.Bottleneck.Statement, "  ")
		}
	}
	if len(m.Published) > 0 {
		b.WriteString("\nthe article's figures beside ours:\n")
		t, notes := m.publishedTable()
		o.table(&b, upper(t.Header), t.Rows)
		for _, n := range notes {
			o.prose(&b, "", n, "    ")
		}
	}
	if t, ok := m.peerRTTTable(); ok {
		b.WriteString("\npeer round trips per member, in etcd's histogram buckets:\n")
		o.table(&b, upper(t.Header), t.Rows)
	}
	for _, g := range m.Gains {
		b.WriteString("\n" + g.title() + ":\n")
		t := g.table()
		o.table(&b, upper(t.Header), t.Rows)
	}
	if len(m.Problems) > 0 {
		b.WriteString("\n")
		for _, p := range m.Problems {
			o.prose(&b, "not measured: ", p, "  ")
		}
	}
	b.WriteString("\n")
	for _, n := range m.notes() {
		o.prose(&b, "note: ", n, "  ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// table writes a table at its natural width when o.Wide, else within
// TermWidth.
func (o TerminalOptions) table(b *strings.Builder, headers []string, rows [][]string) {
	if o.Wide {
		_ = table.Write(b, headers, rows)
		return
	}
	_ = table.WriteWrapped(b, headers, rows, TermWidth)
}

func upper(h []string) []string {
	out := make([]string, len(h))
	for i, s := range h {
		out[i] = strings.ToUpper(s)
	}
	return out
}
