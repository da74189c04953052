package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// sizingDoc is the sizing built-in's result in small: a tier whose choice
// has fewer cores than the guide's (with its round-trip budget), a tier
// whose candidates all broke, and a tier beyond the guide's largest
// example that agrees with it.
func sizingDoc() *result.Document {
	guide := func(tier string, nodes int, cpus float64, iops int, differs string) []result.SizeGuide {
		return []result.SizeGuide{
			{Source: "etcd hardware guide", Tier: tier, Nodes: nodes, CPUs: cpus, IOPS: iops, Differs: differs},
			{Source: "OpenShift", Tier: "250 workers", Nodes: 250, CPUs: 16, Differs: "OpenShift's row"},
		}
	}
	small := &result.Size{
		Target: result.SizeTarget{Nodes: 50, Pods: 1500},
		Candidates: []result.SizeCandidate{
			{Name: "3x1c disk", Members: 3, CPUs: 1, Disk: "disk", Holds: true, Knee: 4, KneeNodes: 200, Headroom: 0.31, HeadroomOK: true},
			{Name: "3x2c disk", Members: 3, CPUs: 2, Disk: "disk", Holds: true, Knee: 8, KneeNodes: 400, Above: true, Headroom: 0.16, HeadroomOK: true},
		},
		Choice: "3x1c disk",
		RTT:    &result.SizeRTT{Candidate: "3x1c disk", BudgetMs: 80, BrokeMs: 160},
		Guide:  guide("small", 50, 2, 3600, "fewer cores than the guide's small tier (2): the load this size implies kept the busiest member at 31% of 1 cores"),
	}
	xlarge := &result.Size{
		Target: result.SizeTarget{Nodes: 3000, Pods: 90000},
		Candidates: []result.SizeCandidate{
			{Name: "3x8c disk", Members: 3, CPUs: 8, Disk: "disk", Below: true, KneeNodes: 0, BrokeFirst: result.SLOWALFsyncP99},
		},
		ChoiceWhy: "none of the 1 candidates held at the target: add cores, a faster disk or members closer together",
		Guide:     guide("xlarge", 3000, 16, 16000, "etcdlab found no candidate that holds with headroom, so it cannot confirm the guide's xlarge tier (16 cores)"),
	}
	huge := &result.Size{
		Target:     result.SizeTarget{Nodes: 5000, Pods: 150000},
		Candidates: []result.SizeCandidate{{Name: "5x16c ebs-001", Members: 5, CPUs: 16, Disk: "ebs-001", Holds: true, Knee: 1.3, KneeNodes: 6500, Headroom: 0.58, HeadroomOK: true}},
		Choice:     "5x16c ebs-001",
		RTT:        &result.SizeRTT{Candidate: "5x16c ebs-001", BudgetMs: 640, Above: true},
		Guide:      guide("xlarge", 3000, 16, 16000, ""),
	}
	cell := func(w string, s *result.Size) result.Cell {
		return result.Cell{ID: "this-machine/" + w, Setup: "this-machine", Workload: w, Status: result.CellOK, Size: s}
	}
	failed := cell("medium", nil)
	failed.Status, failed.Error = result.CellFailed, "etcdlab size needs root"
	return &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "sizing", Title: "etcd's hardware guide, measured",
		Cells: []result.Cell{cell("small", small), failed, cell("xlarge", xlarge), cell("huge", huge)}}}
}

// TestSizingTable: a row per cell with a size answer (none for a cell that
// failed before it had one): the tier, the guide's cores (with its tier
// when the workload is named otherwise) and IOPS, the choice with its
// knee, headroom and round-trip budget, and how it compares; the notes say
// where and why. Text golden; the HTML and Markdown reports have the
// table too.
func TestSizingTable(t *testing.T) {
	m := newExpModel(sizingDoc(), Statements{})
	tab, notes, ok := m.sizingTable()
	if !ok || len(tab.Rows) != 3 {
		t.Fatalf("sizing table %v (%v), want three rows", tab, ok)
	}
	want := []string{
		"small|50|2 cores, 3,600 IOPS|3 × 1 core, this disk|200 nodes|31%|80 ms|fewer cores",
		"xlarge|3,000|16 cores, 16,000 IOPS|none|-|-|-|no choice",
		"huge|5,000|16 cores, 16,000 IOPS (xlarge)|5 × 16 cores, disk ebs-001|6,500 nodes|58%|≥ 640 ms|agrees",
	}
	for i, w := range want {
		if got := strings.Join(tab.Rows[i], "|"); got != w {
			t.Errorf("row %d\n got %q\nwant %q", i, got, w)
		}
	}
	if len(notes) != 3 || !strings.HasPrefix(notes[0], "small: fewer cores") || !strings.HasPrefix(notes[1], "xlarge: no choice: none of the 1") {
		t.Errorf("notes %q", notes)
	}
	var b bytes.Buffer
	if err := ExperimentText(&b, sizingDoc(), TerminalOptions{}, Judged{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiment_sizing.txt", b.Bytes())
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(line, "|") && len([]rune(line)) > TermWidth {
			t.Errorf("a table line of %d columns: %s", len([]rune(line)), line)
		}
	}
	for _, f := range []func(*bytes.Buffer) error{
		func(w *bytes.Buffer) error {
			return HTML(w, []result.Named{{Name: "sizing", Doc: sizingDoc()}}, Judged{})
		},
		func(w *bytes.Buffer) error {
			return Markdown(w, []result.Named{{Name: "sizing", Doc: sizingDoc()}}, Judged{})
		},
	} {
		var h bytes.Buffer
		if err := f(&h); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(h.String(), "Sizing: etcdlab") || !strings.Contains(h.String(), "3 × 1 core, this disk") {
			t.Errorf("a report lacks the sizing table:\n%.2000s", h.String())
		}
	}
	if _, _, ok := newExpModel(&result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "x"}}, Statements{}).sizingTable(); ok {
		t.Error("a sizing table without size cells")
	}
}
