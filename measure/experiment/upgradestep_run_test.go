package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/result"
)

// builtEtcd builds (or finds in the machine's shared cache) etcd v from
// its modules; it skips the test in -short.
func builtEtcd(t *testing.T, v string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds etcd from its modules")
	}
	ver, _ := etcdbuild.ParseVersion(v)
	ctx, cancel := context.WithTimeout(context.Background(), etcdbuild.BuildTimeout)
	defer cancel()
	if _, err := (etcdbuild.Builder{}).Binary(ctx, ver); err != nil {
		t.Fatalf("build etcd %s: %v", v, err)
	}
}

const upgradeUnderLoad = `name: up
setups:
  - {name: s, members: 3, storage: tmpfs, etcd: {version: 3.5.35}}
workloads:
  - name: put
    bench: --conns=3 --clients=20 --duration=25s put --rate=200 --val-size=64
faults:
  - {at: 2s, upgrade: 3.6.16}
`

// TestTimelineUpgradesUnderLoad runs a one-cell experiment whose timeline
// upgrades a 3-member etcd 3.5 cluster to 3.6 under an open-loop load:
// the event records each member's replacement once, the leader last, from
// 3.5.35 to 3.6.16, and every failed request of the run was sent in a
// step's window.
func TestTimelineUpgradesUnderLoad(t *testing.T) {
	builtEtcd(t, "3.5.35")
	builtEtcd(t, "3.6.16")
	doc, err := Run(context.Background(), Options{Plan: plan(t, upgradeUnderLoad), DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Experiment.Cells[0]
	if c.Status != result.CellOK || len(c.Runs) != 1 || c.Runs[0].Requests == 0 {
		t.Fatalf("cell %s %q, %d runs", c.Status, c.Error, len(c.Runs))
	}
	if want := "the timeline moved the members' etcd during the run: 3.5.35 -> 3.6.16"; !slices.ContainsFunc(c.Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
		t.Errorf("notes %q lack %q", c.Notes, want)
	}
	if len(c.Faults) != 1 {
		t.Fatalf("events %+v", c.Faults)
	}
	ev := c.Faults[0]
	if ev.Action != "upgrade" || ev.Target != "3.6.16" || ev.Error != "" || ev.Upgrade == nil {
		t.Fatalf("event %+v", ev)
	}
	u := ev.Upgrade
	if u.To != "3.6.16" || u.Downgrade || len(u.Steps) != 3 || u.Seconds <= 0 {
		t.Fatalf("upgrade %+v", u)
	}
	run := c.Runs[0]
	seen := map[string]bool{}
	var inSteps int64
	for i, s := range u.Steps {
		seen[s.Member] = true
		if s.From != "3.5.35" || s.To != "3.6.16" || s.DownSeconds <= 0 || !s.Ready.After(s.Began) || s.WasLeader != (i == 2) {
			t.Errorf("step %d: %+v", i, s)
		}
		if s.Began.Before(ev.Time) || s.Began.Before(run.Start) {
			t.Errorf("step %d began at %s, before the event (%s) or the run (%s)", i, s.Began, ev.Time, run.Start)
		}
		if max := s.Ready.Sub(s.Began).Seconds(); s.ClientUnavailableSeconds > max {
			t.Errorf("step %d: %.2fs of client unavailability in a %.2fs window", i, s.ClientUnavailableSeconds, max)
		}
		inSteps += s.ClientErrors
		t.Logf("%s %s -> %s: down %.2fs, window %.2fs, cluster unavailable %.2fs, %d client errors, client unavailable %.2fs",
			s.Member, s.From, s.To, s.DownSeconds, s.Ready.Sub(s.Began).Seconds(), s.ClusterUnavailableSeconds(), s.ClientErrors, s.ClientUnavailableSeconds)
	}
	if len(seen) != 3 {
		t.Errorf("members replaced: %v", seen)
	}
	if u.ClientErrorsOutside != 0 || inSteps != run.ErrorCount() {
		t.Errorf("%d of the run's %d failed requests in the steps' windows, %d outside them (%v)", inSteps, run.ErrorCount(), u.ClientErrorsOutside, run.ErrorMessages)
	}
}
