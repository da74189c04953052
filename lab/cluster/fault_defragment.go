package cluster

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// FaultDefragment is one defragmentation, as Counts names it.
const FaultDefragment = result.OpDefragment

// maintenanceTimeout is how long a maintenance operation's users wait for
// it when they have nothing else to wait for: a large database on a slow
// disk takes minutes to rewrite.
const maintenanceTimeout = 10 * time.Minute

// defragment defragments a member's backend once, as an operator's
// `etcdctl defrag --endpoints MEMBER`, and records what it cost
// (result.MaintenanceOp): the database before and after, how long the
// member answered nothing (a member canary: while etcd rewrites the file,
// it serves nothing that needs its backend) and how long the cluster did
// not. defrag (fault_defrag.go) is its loop.
type defragment struct{}

func (defragment) About() About {
	return About{Name: FaultDefragment, Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help:    "defragment the member's database once, timing the window in which it answers nothing (seconds to minutes on a large database)",
		Timeout: maintenanceTimeout}
}

func (f defragment) Apply(c *Cluster, r Request) error { return applyLong(f, c, r) }

func (f defragment) Inject(ctx context.Context, st State, r Request) ([]string, error) {
	return injectLong(ctx, f, st, r)
}

func (f defragment) Run(ctx context.Context, c *Cluster, r Request) (Outcome, error) {
	return runCounted(ctx, f, c, r)
}

func (defragment) RunIn(ctx context.Context, st State, r Request) (Outcome, error) {
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return Outcome{}, err
	}
	rec := &result.MaintenanceOp{Op: result.OpDefragment, Member: m.Name}
	cli, err := memberClient(ctx, st.Client(), m.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	defer cli.Close()
	before, err := cli.Status(ctx, m.ClientURL)
	if err != nil {
		return maintained(rec, "", err)
	}
	rec.DBBytesBefore, rec.DBInUseBefore = before.DbSize, before.DbSizeInUse
	err = watched(ctx, st.Client(), m.ClientURL, rec, func(ctx context.Context) error {
		_, err := cli.Defragment(ctx, m.ClientURL)
		return err
	})
	if err != nil {
		return maintained(rec, "", err)
	}
	if after, err := cli.Status(ctx, m.ClientURL); err == nil {
		rec.DBBytesAfter = after.DbSize
	}
	return maintained(rec, fmt.Sprintf("defragmented %s in %.2fs: database %s (%s in use) -> %s",
		m.Name, rec.Seconds, ibytes(rec.DBBytesBefore), ibytes(rec.DBInUseBefore), ibytes(rec.DBBytesAfter))+blockedLine(m.Name, rec), nil)
}
