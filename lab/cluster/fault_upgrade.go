package cluster

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/result"
)

// The faults that move every member's etcd, one member at a time, while
// the cluster serves (Upgrade, Downgrade): etcd's own robustness tests
// treat both as failpoints. They take an etcd, not a member, last tens of
// seconds (LongFault, About.Timeout), and build a version before the run
// (Preparer).
const (
	FaultUpgrade   = "upgrade"
	FaultDowngrade = "downgrade"
)

// moveTimeout is how long a move's users still wait for one in progress
// when they have nothing else to wait for (an experiment cell's end),
// before cancelling it, which leaves the cluster mixed.
const moveTimeout = 3 * time.Minute

// upgrade moves every member to an etcd (Upgrade): an upgrade, or a
// downgrade when that etcd is one minor version older.
type upgrade struct{ move }

func (upgrade) About() About {
	return About{Name: FaultUpgrade, Args: "one etcd (a version such as 3.6.16, a binary's path, or embedded)", MinArgs: 1, MaxArgs: 1,
		Usage: "ETCD", Help: "replace every member's etcd by ETCD (a version, a binary's path or embedded), one at a time, while the cluster serves",
		Etcd: true, Timeout: moveTimeout}
}

func (f upgrade) CheckArgs(args []string) error { return checkEtcdArg(f.About().Name, args) }

func (upgrade) Apply(c *Cluster, r Request) error { return applyMove(c, r, false) }

func (upgrade) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectMove(ctx, st, r, false)
}

func (upgrade) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return outcome(c.Upgrade(ctx, r.arg(0)))
}

func (upgrade) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	return outcome(NewControl(st).Upgrade(ctx, r.arg(0)))
}

// downgrade moves every member to an etcd one minor version older than
// theirs, with etcd's downgrade API first (Downgrade); it refuses any
// other etcd.
type downgrade struct{ move }

func (downgrade) About() About {
	return About{Name: FaultDowngrade, Args: "one etcd one minor version older (a version such as 3.5.35, a binary's path, or embedded)", MinArgs: 1, MaxArgs: 1,
		Usage: "ETCD", Help: "etcd's downgrade API, then every member's etcd replaced by ETCD, one minor version older, one at a time",
		Etcd: true, Timeout: moveTimeout}
}

func (f downgrade) CheckArgs(args []string) error { return checkEtcdArg(f.About().Name, args) }

func (downgrade) Apply(c *Cluster, r Request) error { return applyMove(c, r, true) }

func (downgrade) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectMove(ctx, st, r, true)
}

func (downgrade) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return outcome(c.Downgrade(ctx, r.arg(0)))
}

func (downgrade) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	return outcome(NewControl(st).Downgrade(ctx, r.arg(0)))
}

// move is what upgrade and downgrade share: their preparation.
type move struct{}

// Prepare builds (or finds in the cache) the etcd version r names and
// returns the request with its binary's path instead; a path or
// "embedded" is left as it is.
func (move) Prepare(ctx context.Context, r Request, log io.Writer) (Request, error) {
	spec := r.arg(0)
	if spec == "embedded" || spec == "" {
		return r, nil
	}
	bin, _, err := etcdbuild.Builder{Log: log}.Resolve(ctx, spec)
	if err != nil {
		return r, err
	}
	r.Args = append([]string{bin}, r.Args[1:]...)
	return r, nil
}

// checkEtcdArg refuses args that are not one etcd: a version (3.6.16,
// 3.7), a binary's path (with a slash), or "embedded".
func checkEtcdArg(name string, args []string) error {
	switch {
	case len(args) == 0:
		return invalid.Errorf("fault %s needs one etcd (a version such as 3.6.16, a binary's path, or embedded)", name)
	case len(args) > 1:
		return invalid.Errorf("%s takes one etcd (a version such as 3.6.16, a binary's path, or embedded), not %q", name, strings.Join(args, " "))
	case args[0] == "embedded" || strings.Contains(args[0], "/"):
		return nil
	}
	if _, ok := etcdbuild.ParseVersion(args[0]); !ok {
		return invalid.Errorf("%s to %q: give an etcd version (3.6.16), a binary's path, or embedded", name, args[0])
	}
	return nil
}

// applyMove is a move's Apply: bounded as one through the control socket.
func applyMove(c *Cluster, r Request, downgradeOnly bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), UpgradeTimeout)
	defer cancel()
	_, err := c.move(ctx, r.arg(0), downgradeOnly)
	return err
}

// injectMove is a move's Inject: the controller moves its members, and
// the line says what it did.
func injectMove(ctx context.Context, st State, r Request, downgradeOnly bool) ([]string, error) {
	k := NewControl(st)
	do := k.Upgrade
	if downgradeOnly {
		do = k.Downgrade
	}
	out, err := outcome(do(ctx, r.arg(0)))
	if out.Upgrade == nil {
		return nil, err
	}
	verb := "upgraded"
	if out.Upgrade.Downgrade {
		verb = "downgraded"
	}
	return []string{fmt.Sprintf("%s %s", verb, out.Detail)}, err
}

// outcome is a move's report as a long-running fault's Outcome.
func outcome(u *result.Upgrade, err error) (Outcome, error) {
	if u == nil {
		return Outcome{}, err
	}
	return Outcome{Upgrade: u, Detail: fmt.Sprintf("%d members to %s in %.1fs", len(u.Steps), u.To, u.Seconds)}, err
}
