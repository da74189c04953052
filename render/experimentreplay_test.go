package render

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestReplayTable: a replay cell's row says how many figures held, names
// those off with their ratios, and why the rate was not reached; cells
// without a replay have no row.
func TestReplayTable(t *testing.T) {
	doc := &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Cells: []result.Cell{
		{ID: "baseline/replay", Status: result.CellOK, Runs: []result.Run{{Name: "replay", Replay: &result.Replay{
			Rows: []result.FidelityRow{{Name: "put rate", Ratio: 1}, {Name: "keys", Ratio: 1}}}}}},
		{ID: "hdd/replay", Status: result.CellOK, Runs: []result.Run{{Name: "replay", Replay: &result.Replay{Off: 1, Reach: "target saturated",
			Rows: []result.FidelityRow{{Name: "put rate", Ratio: 0.42, Off: true}, {Name: "keys", Ratio: 1}}}}}},
		{ID: "plain/put", Status: result.CellOK, Runs: []result.Run{{Name: "put"}}},
	}}}
	m := newExpModel(doc, Statements{})
	tab, ok := m.replayTable()
	if !ok || len(tab.Rows) != 2 {
		t.Fatalf("replay table %v (%v), want two rows", tab, ok)
	}
	if got := strings.Join(tab.Rows[0], "|"); got != "baseline/replay|replay|2 of 2|-|yes" {
		t.Errorf("baseline row %q", got)
	}
	if got := strings.Join(tab.Rows[1], "|"); got != "hdd/replay|replay|1 of 2|put rate 0.42×|no: target saturated" {
		t.Errorf("hdd row %q", got)
	}
}
