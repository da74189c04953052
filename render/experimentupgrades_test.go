package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// upgradeDoc is an experiment whose one cell's timeline upgraded its
// three members (the leader last) and then failed a second upgrade.
func upgradeDoc() *result.Document {
	t0 := time.Date(2026, 11, 26, 5, 0, 10, 0, time.UTC)
	step := func(i int, member string, down, window float64, errs int64, client float64, cluster *result.Unavailability) result.UpgradeStep {
		b := t0.Add(time.Duration(i) * 3 * time.Second)
		return result.UpgradeStep{Member: member, From: "3.5.35", To: "3.6.16", Began: b, Ready: b.Add(time.Duration(window * float64(time.Second))),
			DownSeconds: down, ClientErrors: errs, ClientUnavailableSeconds: client, ClusterUnavailability: cluster}
	}
	leader := step(2, "m1", 1.1, 1.6, 7, 0.31, &result.Unavailability{TotalSeconds: 0.2, LongestSeconds: 0.2})
	leader.WasLeader, leader.HandedTo = true, "m2"
	return &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "upgrade", Cells: []result.Cell{{
		ID: "etcd-3.5/put", Setup: "etcd-3.5", Workload: "put", Status: result.CellOK,
		Faults: []result.FaultEvent{
			{AtSeconds: 10, Time: t0, Action: "upgrade", Target: "3.6.16", Upgrade: &result.Upgrade{To: "3.6.16", Seconds: 12, ClusterVersionSeconds: 1.5, ClientErrorsOutside: 2,
				Steps: []result.UpgradeStep{step(0, "m2", 1.25, 1.4, 3, 0, nil), step(1, "m3", 0.9, 1.2, 0, 0, nil), leader}}},
			{AtSeconds: 45, Time: t0.Add(35 * time.Second), Action: "upgrade", Target: "3.7.3", Error: "upgrade member m2 to 3.7.3: not healthy within 1m0s",
				Upgrade: &result.Upgrade{To: "3.7.3", Steps: []result.UpgradeStep{}}},
		},
	}}}}
}

// TestUpgradesTable: an experiment whose timeline upgraded shows a row per
// member replaced (window, down time, the cluster's and the clients'
// unavailability, the clients' errors), the leader's hand-over, and
// notes for an upgrade that failed and for failures outside every
// window; in the text (golden) and the HTML report.
func TestUpgradesTable(t *testing.T) {
	t.Parallel()
	m := newExpModel(upgradeDoc(), Statements{})
	tab, notes, ok := m.upgradesTable()
	if !ok || len(tab.Rows) != 3 || len(notes) != 4 {
		t.Fatalf("table %v, notes %q", tab.Rows, notes)
	}
	var b bytes.Buffer
	if err := ExperimentText(&b, upgradeDoc(), TerminalOptions{Wide: true}, Judged{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiment_upgrade.txt", b.Bytes())
	var h bytes.Buffer
	if err := HTML(&h, []result.Named{{Name: "upgrade", Doc: upgradeDoc()}}, Judged{}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Rolling upgrades: each member replaced", "m1 (leader)", "m1 led and handed over to m2 first", "3.5.35 -&gt; 3.6.16", "not healthy within 1m0s"} {
		if !strings.Contains(h.String(), w) {
			t.Errorf("the HTML report lacks %q", w)
		}
	}
	// No upgrade, no table.
	if _, _, ok := newExpModel(&result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "x"}}, Statements{}).upgradesTable(); ok {
		t.Error("a table without upgrades")
	}
}
