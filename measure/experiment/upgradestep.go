package experiment

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/result"
)

// Upgrade steps: "upgrade: 3.6.16" in a timeline moves every member to
// that etcd with a rolling upgrade (cluster.Upgrade) during the measured
// run. It is an action of timelines only, not a fault of lab/cluster's
// registry: its value is the etcd to run (a version, a binary's path, or
// "embedded"), not a member, and it has no undo (a later step moves the
// members again). The timeline starts it at its time in a goroutine of
// its own, so the steps after it keep their times; two upgrades never
// overlap (the later waits for the earlier, and its event says how
// late it began). Versions are built before the measured run starts
// (prepareUpgrades), so no build falls inside it.

// upgradeAction names the step in files, plans and result events.
const upgradeAction = "upgrade"

// upgradeGrace is how long a cell's end still waits for an upgrade in
// progress before cancelling it (which leaves the cluster mixed).
const upgradeGrace = 3 * time.Minute

// timelineAction reports whether name is an action a timeline step may
// name: a fault of the registry that takes a member, or upgrade.
func timelineAction(name string) bool {
	return name == upgradeAction || about(name).TakesMember()
}

// checkUpgradeTarget refuses what cannot name an etcd: a version
// (3.6.16, 3.7), a binary's path (with a slash), or "embedded".
func checkUpgradeTarget(v string, args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("upgrade takes one etcd (a version such as 3.6.16, a binary's path, or embedded), not %q", strings.Join(append([]string{v}, args...), " "))
	case v == "embedded" || strings.Contains(v, "/"):
		return nil
	}
	if _, ok := etcdbuild.ParseVersion(v); !ok {
		return fmt.Errorf("upgrade to %q: give an etcd version (3.6.16), a binary's path, or embedded", v)
	}
	return nil
}

// prepareUpgrades builds (or finds in the cache) every etcd the
// timeline's upgrade steps name, before the measured run, and makes the
// steps use the binaries; a path is taken relative to dir, the file's
// directory. An error names the step.
func (t *timeline) prepareUpgrades(ctx context.Context, dir string) error {
	b := etcdbuild.Builder{}
	for i := range t.steps {
		s := &t.steps[i]
		if s.action != upgradeAction || s.target == "embedded" {
			continue
		}
		p, _, err := b.Resolve(ctx, topology.EtcdIn(s.target, dir))
		if err != nil {
			return fmt.Errorf("upgrade at %s to %s: %w", s.at, s.target, err)
		}
		s.binary = p
	}
	return nil
}

// upgrade performs the upgrade step s, recorded in event idx, on the
// timeline's cluster; it holds upMu throughout, so upgrades run one
// after the other. It runs on a goroutine of its own (upgrades).
func (t *timeline) upgrade(idx int, s step) {
	defer t.upgrades.Done()
	t.upMu.Lock()
	defer t.upMu.Unlock()
	began := time.Now()
	t.update(idx, func(e *result.FaultEvent) {
		if late := began.Sub(e.Time); late > time.Second {
			e.Detail = fmt.Sprintf("began %.1fs late: the upgrade before it was still running", late.Seconds())
		}
		e.Time = began.UTC()
	})
	spec := s.target
	if s.binary != "" {
		spec = s.binary
	}
	rep, err := t.c.Upgrade(t.upCtx, spec)
	t.update(idx, func(e *result.FaultEvent) {
		if rep != nil {
			e.Upgrade = upgradeResult(rep)
			e.Detail = join(e.Detail, fmt.Sprintf("%d members to %s in %.1fs", len(rep.Steps), rep.To, rep.Seconds))
		}
		if err != nil {
			e.Error = oneLine(err)
		}
	})
}

// join joins two phrases with "; ", either may be "".
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}

// upgradeResult is a rolling upgrade's report as a result records it.
func upgradeResult(rep *cluster.UpgradeReport) *result.Upgrade {
	u := &result.Upgrade{To: rep.To, Downgrade: rep.Downgrade, ClusterVersionSeconds: rep.ClusterVersionSeconds, Seconds: rep.Seconds, Steps: []result.UpgradeStep{}}
	for _, s := range rep.Steps {
		u.Steps = append(u.Steps, result.UpgradeStep{
			Member: s.Member, From: s.From, To: s.To, WasLeader: s.WasLeader, HandedTo: s.HandedTo,
			Began: s.Began.UTC(), Ready: s.Ready.UTC(), DownSeconds: s.DownSeconds, ClusterUnavailability: s.ClusterUnavailability,
		})
	}
	return u
}

// attributeUpgrades fills the client figures of the events' upgrades
// from the cell's measured runs, and returns a note for the cell when
// an upgrade moved a member ("" when none did): the environment's
// versions are the members' at the start.
func attributeUpgrades(events []result.FaultEvent, runs []result.Run) string {
	var chain []string
	for i := range events {
		e := &events[i]
		if e.Upgrade == nil {
			continue
		}
		end := e.Time.Add(time.Duration(e.Upgrade.Seconds * float64(time.Second)))
		e.Upgrade.AttributeClients(runs, end)
		if len(e.Upgrade.Steps) == 0 {
			continue
		}
		if len(chain) == 0 {
			chain = append(chain, e.Upgrade.Steps[0].From)
		}
		chain = append(chain, e.Upgrade.To)
	}
	if len(chain) == 0 {
		return ""
	}
	return fmt.Sprintf("the timeline moved the members' etcd during the run: %s (the environment gives their versions at the start)", strings.Join(chain, " -> "))
}
