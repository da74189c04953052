package compare

import (
	"fmt"

	"github.com/etcdlab/etcdlab/result"
)

// experimentRows compares two experiment results cell by cell, matched by
// cell ID, in the base's order: the same experiment run on two machines
// gives one row per cell and metric (the Graviton article's % tables).
// Cells only one side has, or that did not run on both, are listed in the
// second result with why.
func experimentRows(a, b *result.Document) ([]Row, []string) {
	if a.Experiment == nil || b.Experiment == nil {
		return nil, nil
	}
	other := map[string]*result.Cell{}
	for i := range b.Experiment.Cells {
		c := &b.Experiment.Cells[i]
		other[c.ID] = c
	}
	var rows []Row
	var unmatched []string
	seen := map[string]bool{}
	for i := range a.Experiment.Cells {
		ca := &a.Experiment.Cells[i]
		seen[ca.ID] = true
		cb, ok := other[ca.ID]
		switch {
		case !ok:
			unmatched = append(unmatched, ca.ID+": only in the base")
			continue
		case !ran(ca):
			unmatched = append(unmatched, ca.ID+": "+ca.Status+" in the base")
			continue
		case !ran(cb):
			unmatched = append(unmatched, ca.ID+": "+cb.Status+" in the other")
			continue
		}
		rs := cellRows(ca, cb)
		if len(rs) == 0 {
			unmatched = append(unmatched, ca.ID+": no measurement in common")
		}
		rows = append(rows, rs...)
	}
	for i := range b.Experiment.Cells {
		if id := b.Experiment.Cells[i].ID; !seen[id] {
			unmatched = append(unmatched, id+": only in the other")
		}
	}
	return rows, unmatched
}

// ran reports whether a cell has measurements (an interrupted cell keeps
// the runs it finished).
func ran(c *result.Cell) bool {
	return (c.Status == result.CellOK || c.Status == result.CellInterrupted) && (len(c.Runs) > 0 || c.Disk != nil)
}

// cellRows compares two cells' bench points, or their disk jobs. A cell
// with one point is named by its ID alone; one that swept points itself
// names each point after it.
func cellRows(a, b *result.Cell) []Row {
	if len(a.Runs) == 0 && a.Disk != nil && b.Disk != nil {
		rows := diskRows(&result.Document{Disk: a.Disk}, &result.Document{Disk: b.Disk})
		for i := range rows {
			rows[i].Point = a.ID + " " + rows[i].Point
		}
		return rows
	}
	da := &result.Document{Summaries: cellPoints(a)}
	db := &result.Document{Summaries: cellPoints(b)}
	single := len(Points(da)) == 1
	rows := benchRows(da, db)
	for i := range rows {
		if single {
			rows[i].Point = a.ID
		} else {
			rows[i].Point = a.ID + " " + rows[i].Point
		}
	}
	return rows
}

// cellPoints are a cell's sweep points: its summaries, or, for a cell
// written without them, its measured runs grouped by conns and clients
// (iterations of one point), with mean and sample standard deviation.
func cellPoints(c *result.Cell) []result.Summary {
	if len(c.Summaries) > 0 {
		return c.Summaries
	}
	var measured []result.Run
	for _, r := range c.Runs {
		if r.Requests > 0 {
			measured = append(measured, r)
		}
	}
	out := result.Summarize(measured)
	for i := range out {
		out[i].Name = fmt.Sprintf("conns=%d clients=%d", out[i].Conns, out[i].Clients)
	}
	return out
}
