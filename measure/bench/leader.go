package bench

import (
	"context"
	"fmt"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// PlaceLeader is an Observer (a Gate) that hands the leadership of a
// local cluster to Member before every run, so that a write path does not
// depend on who won an election, and records on each measured run who led
// it and whether that held: the leader at the end and its raft term,
// against the term when the run began. One PlaceLeader serves one Run at
// a time.
type PlaceLeader struct {
	Cluster *cluster.Cluster
	Member  string

	term uint64 // the leader's term when the run began
}

// BeginRun does nothing: Ready moves the leadership once every observer
// has begun.
func (p *PlaceLeader) BeginRun(context.Context, RunInfo) {}

// Ready moves the leadership to Member (cluster.MoveLeader) and notes the
// term; an error fails the run.
func (p *PlaceLeader) Ready(ctx context.Context, _ RunInfo) error {
	if err := p.Cluster.MoveLeader(ctx, p.Member); err != nil {
		return err
	}
	_, p.term = p.Cluster.CurrentLeader(ctx)
	return nil
}

// EndRun records on run who led it and whether the leadership held.
func (p *PlaceLeader) EndRun(ctx context.Context, _ RunInfo, run *result.Run, _ error) {
	if run == nil {
		return
	}
	run.Leader = p.Member
	name, term := p.Cluster.CurrentLeader(ctx)
	switch {
	case name != p.Member:
		run.LeaderMoved = fmt.Sprintf("%q led at the end of the run, not %s", name, p.Member)
	case p.term != 0 && term != p.term:
		run.LeaderMoved = fmt.Sprintf("an election during the run (term %d to %d), won by %s again", p.term, term, name)
	}
}
