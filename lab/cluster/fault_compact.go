package cluster

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// FaultCompact is one compaction, as Counts names it.
const FaultCompact = result.OpCompact

// compactRevisionMetric is the gauge of the revision a member's store was
// last compacted to (etcd 3.4 to 3.7).
const compactRevisionMetric = "etcd_debugging_mvcc_compact_revision"

// compact compacts the cluster's key-value history, as an operator's
// `etcdctl compact --physical`: to a revision (REV), to the current
// revision less N (keep=N), or to the current revision. The compaction is
// physical: its call returns when the members' backends have removed the
// history (in batches, compaction-batch-limit revisions at a time, sleeping
// compaction-sleep-interval between them: member.Tuning). It records the
// revision, how many revisions it removed (from the leader's
// etcd_debugging_mvcc_compact_revision before it; 0 when the leader does
// not say), how long the leader answered nothing (a member canary on the
// leader, which the request goes through) and the cluster's windows.
type compact struct{}

func (compact) About() About {
	return About{Name: FaultCompact, Args: "nothing, a revision, or keep=N", MinArgs: 0, MaxArgs: 1, Usage: "[REV|keep=N]",
		Help:    "compact the history physically to REV, to the current revision less N (keep=N), or to the current revision; times the leader's blocked window",
		Timeout: maintenanceTimeout}
}

// CheckArgs takes nothing, a revision (a positive integer) or keep=N (N a
// non-negative integer).
func (compact) CheckArgs(args []string) error {
	_, _, err := compactTarget(args)
	return err
}

// compactTarget parses compact's arguments: the revision to compact to
// (rev > 0), or how many revisions to keep (keep >= 0; -1 when rev is
// given); neither: keep 0.
func compactTarget(args []string) (rev, keep int64, err error) {
	switch {
	case len(args) == 0:
		return 0, 0, nil
	case len(args) > 1:
		return 0, 0, invalid.Errorf("compact takes a revision or keep=N, not %q", strings.Join(args, " "))
	}
	a := args[0]
	if n, ok := strings.CutPrefix(a, "keep="); ok {
		k, err := strconv.ParseInt(n, 10, 64)
		if err != nil || k < 0 {
			return 0, 0, invalid.Errorf("compact %s: keep= takes a number of revisions (keep=1000), not %q", a, n)
		}
		return 0, k, nil
	}
	r, err := strconv.ParseInt(a, 10, 64)
	if err != nil || r <= 0 {
		return 0, 0, invalid.Errorf("compact %s: give a revision (a positive number) or keep=N", a)
	}
	return r, -1, nil
}

func (f compact) Apply(c *Cluster, r Request) error { return applyLong(f, c, r) }

func (f compact) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectLong(ctx, f, st, r)
}

func (f compact) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return runCounted(ctx, f, c, r)
}

func (compact) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	rev, keep, err := compactTarget(r.Args)
	if err != nil {
		return Outcome{}, err
	}
	rec := &result.MaintenanceOp{Op: result.OpCompact}
	leader, err := leadingMember(ctx, st)
	if err != nil {
		return maintained(rec, "", err)
	}
	cli, err := memberClient(ctx, st.Client(), leader.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer cli.Close()
	resp, err := cli.Get(ctx, "etcdlab-canary")
	if err != nil {
		return maintained(rec, "", err)
	}
	current := resp.Header.Revision
	if keep >= 0 {
		rev = current - keep
		if rev <= 0 {
			return maintained(rec, "", fmt.Errorf("the current revision is %d: keeping %d leaves nothing to compact", current, keep))
		}
	}
	prev, known := metricSum(ctx, leader.MetricsURL, compactRevisionMetric, false)
	rec.Revision = rev
	err = watched(ctx, st.Client(), leader.ClientURL, rec, func(ctx context.Context) error {
		_, err := cli.Compact(ctx, rev, clientv3.WithCompactPhysical())
		return err
	})
	if err != nil {
		return maintained(rec, "", err)
	}
	removed := "an unknown number of revisions"
	if known {
		rec.Revisions = rev - max(int64(prev), 0) // -1: never compacted
		removed = fmt.Sprintf("%d revisions", rec.Revisions)
	}
	return maintained(rec, fmt.Sprintf("compacted to revision %d (of %d; %s) in %.2fs", rev, current, removed, rec.Seconds)+
		blockedLine("leader "+leader.Name, rec), nil)
}
