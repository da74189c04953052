package experiment

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
)

// The load generator's CPU budget (a setup's load_cpus, Options.LoadCPUs):
// a local setup's bench cells send their load from a process of their own
// (one agent, agents.Local) in a cgroup with that CPU quota, while this
// process keeps the cluster and its emulated links and disks outside the
// budget. Disk, check and doctor cells are not affected.

// checkLoadCPUs checks setup i's load_cpus: a number of cores, on a
// local setup, in a file without a fault timeline (the timeline runs in
// the process that sends the load).
func (s *Spec) checkLoadCPUs(i int) error {
	st := &s.Setups[i]
	at := []any{"setups", i, "load_cpus"}
	if st.LoadCPUs == 0 {
		return nil
	}
	if st.Live() {
		return s.errorf(at, "is for local setups; against a live cluster run bench --endpoints --load-cpus")
	}
	if err := bench.ValidateLoadCPUs(st.LoadCPUs); err != nil {
		return s.errorf(at, "%g: want a number of cores from 0.01 (0.5, 2)", st.LoadCPUs)
	}
	if len(s.Faults) > 0 {
		return s.errorf(at, "and faults cannot go together: the fault timeline runs in the process that sends the load, which load_cpus moves out of etcdlab")
	}
	return nil
}

// checkLoadOverride checks Options.LoadCPUs against the plan.
func checkLoadOverride(p *Plan, cores float64) error {
	if cores == 0 {
		return nil
	}
	if err := bench.ValidateLoadCPUs(cores); err != nil {
		return err
	}
	if len(p.Spec.Faults) > 0 {
		return invalid.Errorf("{LoadCPUs} and the experiment's faults cannot go together: the fault timeline runs in the process that sends the load")
	}
	return nil
}

// loadCPUs is the load budget of a cell's setup: Options.LoadCPUs on a
// local setup, else its load_cpus; 0 for none.
func (r *runner) loadCPUs(st *Setup) float64 {
	if st.Live() {
		return 0
	}
	if r.o.LoadCPUs > 0 {
		return r.o.LoadCPUs
	}
	return st.LoadCPUs
}

// runBudgetedBench runs a bench cell's line as one agent process in the
// load budget's group, against the cell's cluster (agents.PrepareLocal
// with Config.Cluster). Its leader, if the setup places one, is moved
// before the process starts and checked when it ends: each run records
// who led and whether leadership moved during the whole bench.
func (r *runner) runBudgetedBench(ctx context.Context, pc *Cell, sc *setupCluster, cores float64) (*result.Document, error) {
	cfg := pc.Bench.Config
	cfg.Cluster, cfg.LoadCPUs, cfg.Log, cfg.Observers = sc.c, cores, io.Discard, nil
	args := append(slices.Clone(pc.Line), fmt.Sprintf("--load-cpus=%g", cores))
	local, err := agents.PrepareLocal(ctx, cfg, args, io.Discard)
	if err != nil {
		return nil, err
	}
	defer local.Close()
	leader := pc.Setup.Leader
	var term uint64
	if leader != "" {
		if err := sc.c.MoveLeader(ctx, leader); err != nil {
			return nil, err
		}
		_, term = sc.c.CurrentLeader(ctx)
	}
	res, err := local.Run(ctx, agents.LocalRun{Exe: r.o.Executable, Stderr: io.Discard})
	if err != nil {
		return nil, err
	}
	if res.Doc == nil {
		return nil, fmt.Errorf("the load process failed (%v) and measured nothing", res.Failed)
	}
	doc := res.Doc
	if leader != "" {
		name, now := sc.c.CurrentLeader(ctx)
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
	if r.o.Live != nil {
		doc.Notes = append(doc.Notes, "live metrics do not show this cell: its load ran in a process of its own")
	}
	if n, failed := res.Failed[0]; failed {
		return doc, fmt.Errorf("the load process %s", n)
	}
	return doc, nil
}

// LoadBudgeted reports whether a local setup of the plan's cells has a
// load budget (load_cpus).
func (p *Plan) LoadBudgeted() bool {
	for _, c := range p.Cells {
		if c.Setup.LoadCPUs > 0 && !c.Setup.Live() {
			return true
		}
	}
	return false
}
