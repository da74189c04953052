package render

import "github.com/etcdlab/etcdlab/result"

// Judged is what a report shows that package judge works out rather than
// the documents state. render draws, it never judges: the caller
// (cmd/etcdlab, with judge and judge/bottleneck) computes these and passes
// them in as plain values. The zero value draws the documents as they
// are: a check report then lists no thresholds, and an experiment whose
// result states no bottleneck statements shows none.
type Judged struct {
	// Thresholds are the rows of the thresholds table that check reports
	// list (judge.All).
	Thresholds []Threshold
	// Statements are the bottleneck statements of experiments whose result
	// states none (one from before etcdlab wrote them, or a run cut
	// short), computed for the report (bottleneck.Missing), by the
	// document they belong to. A report that shows them says so.
	Statements map[*result.Document]Statements
}

// Threshold is one row of judge's thresholds table, as a report lists it.
type Threshold struct {
	ID, What, Unit string
	// Warn and Fail are where the bands start; 0 for none.
	Warn, Fail float64
	Source     string
}

// Statements are an experiment's bottleneck statements that its result
// does not state: Cells by cell index (nil where the cell states its own,
// or has none to state), Sweep the whole sweep's (nil when the result
// states it).
type Statements struct {
	Cells []*result.Bottleneck
	Sweep *result.Bottleneck
}

// cell is the statement computed for cell i, if any.
func (s Statements) cell(i int) *result.Bottleneck {
	if i < len(s.Cells) {
		return s.Cells[i]
	}
	return nil
}
