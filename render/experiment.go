package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// expModel is everything an experiment's reports show, computed once from
// its document: the cells' figures, the bottleneck statements, the
// article's figures beside ours, the two-way % table and the data of every
// chart. Text, Markdown and HTML render it; golden files hold its charts'
// data (not their SVG).
type expModel struct {
	Name, Title, Source, Profile, Partial string
	// Sweep lines the cells up (result.SweepOf).
	Sweep result.Sweep
	Cells []expCell
	// Sweep's statement; Computed says the statements were computed for
	// the report because the result has none.
	Overall  *result.Bottleneck
	Computed bool
	// Knees are where each line passed its knee (result.Knee).
	Knees []result.Knee
	// Marks are values marked on the curves along their param (the
	// article's 600 km on the round-trip axis).
	Marks []result.Mark
	// Published is the article's figures beside ours.
	Published []publishedRow
	// Gains are the % tables (gainTables).
	Gains []*gainTable
	// Problems are cells that failed, were interrupted or did not run.
	Problems []string
	Figures  []figData
	// PanelNote says which cells have no panels over time, when some
	// were left out.
	PanelNote string
	pubs      []result.Published
	// machine is the document's environment, for cells that record none.
	machine result.Environment
}

// expCell is one cell and its aggregated figures.
type expCell struct {
	Cell       *result.Cell
	M          result.Measures
	Bottleneck *result.Bottleneck
}

// publishedRow is one article figure beside ours.
type publishedRow struct {
	Cell, Metric, Published, Ours, Note string
}

// newExpModel computes the model of an experiment document; st are the
// statements computed for the report where the document states none.
func newExpModel(doc *result.Document, st Statements) expModel {
	e := doc.Experiment
	m := expModel{Name: e.Name, Title: e.Title, Source: e.Source, Profile: e.Profile, Partial: e.Partial, Sweep: result.SweepOf(e), pubs: e.Published, machine: doc.Environment}
	for i := range e.Cells {
		c := &e.Cells[i]
		ec := expCell{Cell: c, M: result.MeasureCell(c), Bottleneck: c.Bottleneck}
		if ec.Bottleneck == nil {
			ec.Bottleneck = st.cell(i)
			m.Computed = m.Computed || ec.Bottleneck != nil
		}
		m.Cells = append(m.Cells, ec)
		switch c.Status {
		case result.CellFailed:
			m.Problems = append(m.Problems, fmt.Sprintf("%s failed: %s", c.ID, c.Error))
		case result.CellInterrupted:
			m.Problems = append(m.Problems, fmt.Sprintf("%s was interrupted; its finished runs are kept", c.ID))
		case result.CellPending:
			m.Problems = append(m.Problems, c.ID+" did not run (pending)")
		}
	}
	m.Overall, m.Knees, m.Marks = e.Bottleneck, e.Knees, e.Marks
	if m.Overall == nil {
		m.Overall = st.Sweep
		m.Computed = m.Computed || m.Overall != nil
	}
	m.Published = publishedRows(e, m.Cells)
	if len(e.Compare) == 0 { // the % tables show the article's changes
		m.Published = append(m.Published, publishedGrowth(e, m.Cells)...)
	}
	m.Gains = gainTables(e, m.Cells)
	m.Figures = append(m.Figures, m.sweepFigures()...)
	panels, note := m.panelFigures()
	m.Figures, m.PanelNote = append(m.Figures, panels...), note
	return m
}

// ran reports whether a cell has request measurements.
func (c expCell) ran() bool { return c.M.Runs > 0 }

// cellsTable is one row per cell: its load's outcome, the server's
// figures and the limit.
func (m expModel) cellsTable() Table {
	t := Table{Header: []string{"cell", "status", "req/s", "p50", "p99", "member CPU (cores)", "load CPU (cores)", "WAL fsync p99", "disk writes/s", "peer RTT p99", "leader changes", "limit"}}
	for _, c := range m.Cells {
		row := []string{c.Cell.ID, c.Cell.Status}
		if !c.ran() {
			row = append(row, dashes(9)...)
		} else {
			row = append(row, rps(c.M), units.Seconds(c.M.P50.Mean), units.Seconds(c.M.P99.Mean))
			row = append(row, serverCells(c.M)...)
		}
		t.Rows = append(t.Rows, append(row, limit(c.Bottleneck)))
	}
	return t
}

// serverCells are the server columns of the cells table.
func serverCells(m result.Measures) []string {
	load := "not measured"
	if m.LoadCPURuns > 0 {
		load = fmt.Sprintf("%.2f", m.LoadCPUCores)
	}
	if m.ServerRuns == 0 {
		return append([]string{"not scraped", load}, dashes(4)...)
	}
	return []string{fmt.Sprintf("%.2f", m.MemberCPUCores), load, quantile(m.WALFsyncP99, result.LowestDiskBucket), humanize.IBytes(uint64(m.DiskWriteBytesPerSecond)) + "/s",
		quantile(m.PeerRTTP99, result.LowestPeerRTTBucket), fmt.Sprintf("%.0f", m.LeaderChanges)}
}

func dashes(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "-"
	}
	return out
}

// rps renders throughput, with its spread across iterations.
func rps(m result.Measures) string {
	if m.Iterations > 1 {
		return fmt.Sprintf("%s ± %s", humanize.Commaf(round1(m.Throughput.Mean)), humanize.Commaf(round1(m.Throughput.Stddev)))
	}
	return humanize.Commaf(round1(m.Throughput.Mean))
}

// round1 rounds a rate for people: whole from 1,000, one decimal below.
func round1(v float64) float64 {
	if v >= 1000 {
		return float64(int64(v + 0.5))
	}
	return float64(int64(v*10+0.5)) / 10
}

func limit(b *result.Bottleneck) string {
	if b == nil {
		return "-"
	}
	return b.Resource
}

// statementsTable lists the sweep's statement and every cell's.
func (m expModel) statementsTable() Table {
	t := Table{Header: []string{"", "limit", "statement"}}
	if m.Overall != nil {
		t.Rows = append(t.Rows, []string{"whole sweep", m.Overall.Resource, m.Overall.Statement})
	}
	for _, c := range m.Cells {
		if c.Bottleneck != nil {
			t.Rows = append(t.Rows, []string{c.Cell.ID, c.Bottleneck.Resource, c.Bottleneck.Statement})
		}
	}
	return t
}

// publishedTable sets the article's figures beside ours; what differs
// between the article's setup and ours is a numbered note below it (the
// same note serves many rows).
func (m expModel) publishedTable() (Table, []string) {
	t := Table{Header: []string{"cell", "metric", "article", "ours", "what differs"}}
	var notes []string
	num := map[string]int{}
	for _, p := range m.Published {
		ref := "-"
		if p.Note != "" {
			if num[p.Note] == 0 {
				notes = append(notes, p.Note)
				num[p.Note] = len(notes)
			}
			ref = fmt.Sprintf("[%d]", num[p.Note])
		}
		t.Rows = append(t.Rows, []string{p.Cell, p.Metric, p.Published, p.Ours, ref})
	}
	for i, n := range notes {
		notes[i] = fmt.Sprintf("[%d] %s", i+1, n)
	}
	return t, notes
}

// envRows describe the experiment in the report's header table.
func (m expModel) envRows() [][2]string {
	var rows [][2]string
	name := m.Name
	if m.Profile != "" {
		name += " (" + m.Profile + " profile)"
	}
	rows = append(rows, [2]string{"experiment", name})
	if m.Title != "" {
		rows = append(rows, [2]string{"reproduces", strings.TrimSpace(m.Title + " " + paren(m.Source))})
	} else if m.Source != "" {
		rows = append(rows, [2]string{"reproduces", m.Source})
	}
	counts := map[string]int{}
	for _, c := range m.Cells {
		counts[c.Cell.Status]++
	}
	var parts []string
	for _, s := range []string{result.CellOK, result.CellFailed, result.CellInterrupted, result.CellPending, result.CellSkipped} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	rows = append(rows, [2]string{"cells", fmt.Sprintf("%d: %s", len(m.Cells), strings.Join(parts, ", "))})
	if m.Sweep.Param != "" {
		rows = append(rows, [2]string{"swept", m.Sweep.Param})
	}
	if m.Partial != "" {
		rows = append(rows, [2]string{"partial", m.Partial + ": not every cell ran"})
	}
	return rows
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// notes are what a reader of the report should know about it.
func (m expModel) notes() []string {
	var n []string
	if m.Computed {
		n = append(n, "The bottleneck statements were computed when this report was made: the result has none.")
	}
	n = append(n, "WAL fsync and peer round trip are the member a commit waits for (with 3 members, the second fastest); member CPU is the members' mean summed.")
	if m.PanelNote != "" {
		n = append(n, m.PanelNote)
	}
	if m.Sweep.Param != "" {
		for _, c := range m.Cells {
			if why := fewPerClient(c); why != "" && c.ran() {
				n = append(n, why)
			}
		}
	}
	return n
}

// experimentView puts an experiment's model in a report's section: its
// header rows, statements, tables, warnings, notes and charts.
func experimentView(v *docView, m expModel, prefix string) error {
	v.Env = append(v.Env, m.envRows()...)
	t := m.statementsTable()
	for _, r := range t.Rows {
		v.Bottlenecks = append(v.Bottlenecks, statement{Title: r[0], Resource: r[1], Text: r[2]})
	}
	for _, k := range m.Knees {
		v.Bottlenecks = append(v.Bottlenecks, statement{Title: "knee along " + k.Param + ": " + k.Line, Resource: "knee", Text: k.Statement})
	}
	if t, score, ok := m.incidentsTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Incidents: the doctor's confusion table", t})
		v.Notes = append(v.Notes, score)
	}
	v.Tables = append(v.Tables, namedTable{"Cells", m.cellsTable()})
	if t, notes, ok := m.upgradesTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Rolling upgrades: each member replaced", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, ok := m.diskTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Disk jobs", t})
	}
	if t, ok := m.replayTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Replays: each figure of the profile beside the candidate's", t})
	}
	if t, notes, ok := m.sizingTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Sizing: etcdlab's answer beside etcd's hardware guide", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, notes, ok := m.policyTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Maintenance policies: what clients saw, beside the base policy's", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, notes, ok := m.defragCurveTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Defragmentation time against the data in use", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, notes, ok := m.maintenanceOpsTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Maintenance operations", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, ok := m.verdictsTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Verdicts", t})
	}
	if len(m.Published) > 0 {
		t, notes := m.publishedTable()
		v.Tables = append(v.Tables, namedTable{"The article's figures beside ours", t})
		v.Notes = append(v.Notes, notes...)
	}
	if t, ok := m.peerRTTTable(); ok {
		v.Tables = append(v.Tables, namedTable{"Peer round trips per member, in etcd's histogram buckets", t})
	}
	for _, g := range m.Gains {
		v.Tables = append(v.Tables, namedTable{g.title(), g.table()})
	}
	v.Warnings = append(v.Warnings, m.Problems...)
	v.Notes = append(v.Notes, m.notes()...)
	for _, f := range m.Figures {
		c, err := f.draw(prefix)
		if err != nil {
			return fmt.Errorf("chart %s: %w", f.ID, err)
		}
		v.Charts = append(v.Charts, c)
	}
	return nil
}

// experimentComparisonCharts draws each result's throughput and p99 per
// cell the base has in common with the others (numbered; the table names
// them).
func experimentComparisonCharts(docs []result.Named, cs []compare.Comparison) ([]Chart, error) {
	var points []string
	seen := map[string]bool{}
	for _, r := range cs[0].Rows {
		if r.Metric == result.MetricThroughput.Metric().What && !seen[r.Point] {
			seen[r.Point] = true
			points = append(points, r.Point)
		}
	}
	if len(points) == 0 {
		return nil, nil
	}
	cats := make([]string, len(points))
	for i := range points {
		cats[i] = strconv.Itoa(i + 1)
	}
	names := make([]string, len(docs))
	tput, p99 := make([][]float64, len(docs)), make([][]float64, len(docs))
	value := func(c compare.Comparison, point, metric string, base bool) float64 {
		for _, r := range c.Rows {
			if r.Point == point && r.Metric == metric {
				if base {
					return r.Base
				}
				return r.Other
			}
		}
		return 0
	}
	t := Table{Header: []string{"cell"}}
	for i, d := range docs {
		names[i] = d.Name
		t.Header = append(t.Header, d.Name+" req/s", d.Name+" p99")
	}
	for k, p := range points {
		row := []string{cats[k] + ": " + p}
		for i := range docs {
			c, base := cs[0], i == 0
			if i > 0 {
				c = cs[i-1]
			}
			tput[i] = append(tput[i], value(c, p, result.MetricThroughput.Metric().What, base))
			p99[i] = append(p99[i], value(c, p, result.MetricLatencyP99.Metric().What, base)*1000)
			row = append(row, f1(tput[i][k]), ms(p99[i][k]/1000))
		}
		t.Rows = append(t.Rows, row)
	}
	var charts []Chart
	for _, spec := range []struct {
		id, title, unit string
		v               [][]float64
	}{{"cmp-exp-throughput", "Requests per second per cell, per result", "requests per second", tput}, {"cmp-exp-p99", "Latency p99 per cell, per result", "latency p99 (ms)", p99}} {
		c, err := barChart(spec.id, spec.title, spec.unit, cats, names, spec.v)
		if err != nil {
			return nil, err
		}
		c.Table = t
		charts = append(charts, c)
	}
	return charts, nil
}
