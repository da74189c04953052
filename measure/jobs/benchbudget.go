package jobs

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// runBudgeted runs a bench cell's line as one agent process in the load
// budget's group (t.LoadCPUs), against the cell's local cluster
// (agents.PrepareLocal with Config.Cluster), while this process keeps the
// cluster and its emulated links and disks outside the budget. Its
// leader, if the setup places one, is moved before the process starts and
// checked when it ends: each run records who led and whether leadership
// moved during the whole bench.
func (w *BenchWork) runBudgeted(ctx context.Context, t *job.Target) (*result.Document, error) {
	cores, c := t.LoadCPUs, t.Cluster
	cfg := w.Bench.Config
	cfg.Cluster, cfg.LoadCPUs, cfg.Log, cfg.Observers = c, cores, io.Discard, nil
	args := append(slices.Clone(w.Line), fmt.Sprintf("--load-cpus=%g", cores))
	local, err := agents.PrepareLocal(ctx, cfg, args, io.Discard)
	if err != nil {
		return nil, err
	}
	defer local.Close()
	leader := t.Leader
	var term uint64
	if leader != "" {
		if err := c.MoveLeader(ctx, leader); err != nil {
			return nil, err
		}
		_, term = c.CurrentLeader(ctx)
	}
	res, err := local.Run(ctx, agents.LocalRun{Exe: t.Executable, Stderr: io.Discard})
	if err != nil {
		return nil, err
	}
	if res.Doc == nil {
		return nil, fmt.Errorf("the load process failed (%v) and measured nothing", res.Failed)
	}
	doc := res.Doc
	if leader != "" {
		name, now := c.CurrentLeader(ctx)
		moved := ""
		switch {
		case name != leader:
			moved = fmt.Sprintf("%q led at the end of the bench, not %s", name, leader)
		case term != 0 && now != term:
			moved = fmt.Sprintf("an election during the bench (term %d to %d), won by %s again", term, now, name)
		}
		for i := range doc.Runs {
			doc.Runs[i].Leader, doc.Runs[i].LeaderMoved = leader, moved
		}
		doc.Notes = append(doc.Notes, "the leader was placed on "+leader+" once, before the load process started, and checked when it ended")
	}
	if t.Live != nil {
		doc.Notes = append(doc.Notes, "live metrics do not show this cell: its load ran in a process of its own")
	}
	if n, failed := res.Failed[0]; failed {
		return doc, fmt.Errorf("the load process %s", n)
	}
	return doc, nil
}
