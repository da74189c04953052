package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// CommandName is etcdlab_run_info's command label for bench.
const CommandName = "bench"

// LiveOptions are the options of the load.Live that shows cfg's runs
// (ShowLive): bench's command name, and this process's place among the
// agents of a distributed run (agent 0 of 1 when it runs alone).
func LiveOptions(cfg Config) load.LiveOptions {
	if cfg.Agent.Count > 1 {
		return load.LiveOptions{Command: CommandName, AgentIndex: cfg.Agent.Index, AgentCount: cfg.Agent.Count}
	}
	return load.LiveOptions{Command: CommandName, AgentIndex: 0, AgentCount: 1}
}

// ShowLive is an Observer that shows every run's requests (warm-ups too)
// in l as Prometheus metrics while they run, each run named by l.Begin
// (LiveOptions makes l's options for a configuration). The load tracks
// its recorders in l (load.Spec.Live), once per run.
func ShowLive(l *load.Live) Observer { return &liveObserver{l: l} }

// liveObserver is ShowLive's Observer; end names the run in progress.
type liveObserver struct {
	l   *load.Live
	end func()
}

func (o *liveObserver) BeginRun(_ context.Context, r RunInfo) { o.end = o.l.Begin(r.Name) }

func (o *liveObserver) EndRun(context.Context, RunInfo, *result.Run, error) {
	if o.end != nil {
		o.end()
		o.end = nil
	}
}
