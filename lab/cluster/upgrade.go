package cluster

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/result"
)

// Rolling upgrades (Upgrade): members are replaced one at a time, the
// followers first and the leader last, after it has handed its
// leadership to a member already replaced, so that the cluster holds one
// election by hand-over rather than by timeout. Each replacement is etcd's
// documented procedure: stop the member gracefully (SIGTERM), start the
// new binary on the same data with a configuration written for its
// version, wait until it is healthy and has applied what the leader had
// committed. A canary's linearizable reads, every 100 ms, time the
// cluster's unavailability over each step.

// Limits of one member's replacement.
const (
	upgradeStopGrace = 10 * time.Second // SIGTERM, then SIGKILL
	upgradeReadyWait = 60 * time.Second // new process healthy and caught up
	canaryEvery      = 100 * time.Millisecond
)

// Upgrade replaces every member whose etcd is not spec's (a version or a
// binary's path, as Options.Etcd; "embedded" is the etcd in etcdlab) with
// it, one at a time, while the cluster serves. It refuses, before
// touching anything, what etcd does not support: a step of more than one
// minor version, or a downgrade other than one minor from 3.6 on (which
// it performs with etcd's downgrade API first). On an error it stops where
// it is and returns what it did: the cluster may then be mixed, and says
// so (State). Moves of one cluster must not overlap: callers run them one
// after the other.
func (c *Cluster) Upgrade(ctx context.Context, spec string) (*result.Upgrade, error) {
	return c.move(ctx, spec, false)
}

// Downgrade is Upgrade to an etcd one minor version older than every
// member's (3.6 on, with etcd's downgrade API first); it refuses, before
// touching anything, a spec that is not one.
func (c *Cluster) Downgrade(ctx context.Context, spec string) (*result.Upgrade, error) {
	return c.move(ctx, spec, true)
}

// move is Upgrade, or Downgrade when downgradeOnly.
func (c *Cluster) move(ctx context.Context, spec string, downgradeOnly bool) (*result.Upgrade, error) {
	if c.stopping.Load() {
		return nil, errors.New("cluster is stopping")
	}
	bin, to, err := c.resolveTarget(ctx, spec)
	if err != nil {
		return nil, err
	}
	rep := &result.Upgrade{To: to, Steps: []result.UpgradeStep{}}
	began := time.Now()
	defer func() { rep.Seconds = time.Since(began).Seconds() }()
	c.mu.Lock()
	from := append([]memberEtcd(nil), c.etcd...)
	c.mu.Unlock()
	rep.Downgrade, err = checkTransition(c.names, from, to)
	if err != nil {
		return nil, err
	}
	if downgradeOnly && !rep.Downgrade {
		return nil, invalid.Errorf("etcd %s is no downgrade of the members' (%s): a downgrade goes one minor version down, from 3.6 on", to, c.State().EtcdVersion)
	}
	if rep.Downgrade {
		rep.DowngradeBegan = time.Now().UTC()
		canary := c.startCanary(ctx)
		err := c.enableDowngrade(ctx, to)
		rep.DowngradeUnavailability = canary.stop()
		rep.DowngradeEnabled = time.Now().UTC()
		rep.DowngradeSeconds = rep.DowngradeEnabled.Sub(rep.DowngradeBegan).Seconds()
		if err != nil {
			return rep, err
		}
	}
	for _, name := range c.upgradeOrder(ctx) {
		i, _ := c.index(name)
		if from[i].bin == bin && from[i].version == to {
			continue
		}
		step, err := c.replace(ctx, i, memberEtcd{bin: bin, version: to}, rep.Steps)
		rep.Steps = append(rep.Steps, step)
		if err != nil {
			return rep, fmt.Errorf("upgrade member %s to %s: %w (the cluster is left %s)", name, to, err, c.State().EtcdVersion)
		}
	}
	// The move ends when the cluster version has followed (a downgrade
	// set it already): until then a further move would be refused.
	ma, mi, _ := etcdbuild.MinorOf(to)
	t0 := time.Now()
	if err := c.waitClusterVersion(ctx, fmt.Sprintf("%d.%d", ma, mi)); err != nil {
		return rep, err
	}
	rep.ClusterVersionSeconds = time.Since(t0).Seconds()
	return rep, nil
}

// resolveTarget finds spec's binary and version ("embedded": etcdlab's).
func (c *Cluster) resolveTarget(ctx context.Context, spec string) (bin, v string, err error) {
	if spec == "" {
		return "", "", invalid.Errorf("upgrade to what? give a version (3.6.16), an etcd binary's path, or \"embedded\"")
	}
	if spec == "embedded" {
		return "", version.Etcd(), nil
	}
	bin, v, err = etcdbuild.Builder{Log: c.opts.Log}.Resolve(ctx, spec)
	if err == nil && c.net != nil && !etcdbuild.AtLeast(v, 3, 6) {
		err = invalid.Errorf("etcd %s cannot run in an emulated network (it needs 3.6 or newer, SetMemberLocalAddr)", v)
	}
	return bin, v, err
}

// checkTransition says whether moving members from their versions to to
// is a downgrade, and refuses what etcd does not support.
func checkTransition(names []string, from []memberEtcd, to string) (downgrade bool, err error) {
	tma, tmi, ok := etcdbuild.MinorOf(to)
	if !ok {
		return false, invalid.Errorf("etcd %q: not a version this lab can reason about", to)
	}
	minors := map[int]bool{}
	for i, e := range from {
		ma, mi, ok := etcdbuild.MinorOf(e.version)
		if !ok || ma != tma {
			return false, invalid.Errorf("member %s runs etcd %s: etcd moves within major version 3 only", names[i], e.version)
		}
		switch {
		case mi > tmi+1 || mi < tmi-1:
			return false, invalid.Errorf("member %s runs etcd %s: etcd supports moving one minor version at a time, not to %s (go through %d.%d)", names[i], e.version, to, tma, (mi+tmi)/2)
		case mi == tmi+1:
			downgrade = true
		}
		minors[mi] = true
	}
	if downgrade {
		if len(minors) > 1 {
			return false, invalid.Errorf("the members run %d minor versions: finish the move under way before a downgrade to %s", len(minors), to)
		}
		if tmi < 5 {
			return false, invalid.Errorf("etcd has no downgrade to %s: downgrades exist from 3.6 to 3.5 on (etcd's downgrade API); restore a %s backup instead", to, to)
		}
	}
	return downgrade, nil
}

// upgradeOrder lists the members followers first, by name, and the
// leader last.
func (c *Cluster) upgradeOrder(ctx context.Context) []string {
	leader, _ := c.CurrentLeader(ctx)
	order := append([]string(nil), c.names...)
	sort.SliceStable(order, func(a, b int) bool { return order[b] == leader && order[a] != leader })
	return order
}

// replace swaps member i's etcd for to; done are the steps before it (a
// leader hands over to a member they replaced).
func (c *Cluster) replace(ctx context.Context, i int, to memberEtcd, done []result.UpgradeStep) (result.UpgradeStep, error) {
	name := c.names[i]
	c.mu.Lock()
	step := result.UpgradeStep{Member: name, From: c.etcd[i].version, To: to.version, Began: time.Now().UTC()}
	p := c.procs[i]
	c.mu.Unlock()
	canary := c.startCanary(ctx)
	defer func() { step.ClusterUnavailability = canary.stop() }()
	if leader, _ := c.CurrentLeader(ctx); leader == name && len(c.names) > 1 {
		step.WasLeader = true
		step.HandedTo = handOverTarget(c.names, name, done)
		if err := c.MoveLeader(ctx, step.HandedTo); err != nil {
			return step, err
		}
	}
	stopAt := time.Now()
	c.replacing(name, true)
	defer c.replacing(name, false)
	p.Stop(syscall.SIGTERM, upgradeStopGrace)
	step.Stopped = time.Now().UTC()
	c.mu.Lock()
	c.etcd[i] = to
	c.cfgs[i].Version = to.version
	cfg := c.cfgs[i]
	c.mu.Unlock()
	if err := cfg.WriteFile(filepath.Join(filepath.Dir(cfg.LogFile), "member.yaml")); err != nil {
		return step, fmt.Errorf("write config: %w", unwrapPath(err))
	}
	if c.stopping.Load() { // Stop has begun: start nothing it would miss
		return step, errors.New("the cluster is stopping")
	}
	if err := c.spawn(i); err != nil {
		return step, err
	}
	step.Started = time.Now().UTC()
	if err := c.waitCaughtUp(ctx, i); err != nil {
		return step, err
	}
	step.Ready = time.Now().UTC()
	step.DownSeconds = step.Ready.Sub(stopAt).Seconds()
	return step, nil
}

// replacing marks member name as being replaced (its exit is no
// surprise for OnExit), or no longer.
func (c *Cluster) replacing(name string, on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inUpgrade == nil {
		c.inUpgrade = map[string]bool{}
	}
	c.inUpgrade[name] = on
}

// handOverTarget is who a leader being replaced hands over to: the first
// member already replaced, else the first other member.
func handOverTarget(names []string, leader string, done []result.UpgradeStep) string {
	for _, s := range done {
		if s.Member != leader {
			return s.Member
		}
	}
	for _, n := range names {
		if n != leader {
			return n
		}
	}
	return leader
}

// waitCaughtUp waits until member i answers healthy and has applied the
// leader's commit index of the moment it first answered.
func (c *Cluster) waitCaughtUp(ctx context.Context, i int) error {
	ctx, cancel := context.WithTimeout(ctx, upgradeReadyWait)
	defer cancel()
	conn := c.Client()
	names := c.endpointNames()
	var target uint64
	why := "no answer"
	p, err := c.proc(c.names[i])
	if err != nil {
		return err
	}
	for {
		if done, err := p.Exited(); done {
			return fmt.Errorf("its new process exited (%w): %s", err, p.Tail(3))
		}
		var self MemberStatus
		var leaderIndex uint64
		for _, s := range Status(ctx, conn, names) {
			if s.Name == c.names[i] {
				self = s
			}
			if s.Role == "leader" {
				leaderIndex = s.RaftIndex
			}
		}
		switch {
		case !self.Healthy:
			why = self.Error
		case target == 0 && leaderIndex > 0:
			target = leaderIndex
			why = fmt.Sprintf("catching up to index %d", target)
		}
		if target > 0 && self.Healthy && self.RaftAppliedIndex >= target {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not healthy and caught up within %s: %s", upgradeReadyWait, why)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
