package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
)

// RunAgent runs one agent of a bench load split over cfg.Agent.Count
// processes: bench.Run with the agents' coordination (Coordination) among
// its observers. It is what `etcdlab agent` and the Indexed Job's pods
// run; cfg.Agent.Index says which agent this is, cfg.Agent.Host names
// the machine in the result (default: its host name).
func RunAgent(ctx context.Context, cfg bench.Config) (*result.Document, error) {
	if cfg.Agent.Host == "" {
		cfg.Agent.Host, _ = os.Hostname()
	}
	cfg.Observers = append(slices.Clip(cfg.Observers), Coordination())
	return bench.Run(ctx, cfg)
}

// Coordination is the bench.Observer that makes a run one agent of
// several (bench.Config.Agent, Count of at least 2; a run that is no
// agent's passes through it untouched): it gives bench the agent's slice
// of the load (a bench.Slicer), joins the others through keys
// under <Prefix>agents/ in the target cluster (a lease that vanishes
// when the agent dies), waits for them before every run (a barrier, or
// the wall-clock start), records the barriers in Document.Agent (the
// clock offsets Merge takes off), tells the others when it stops early,
// and after the clean-up deletes the keys of an agent that died. It
// serves one bench.Run.
func Coordination() bench.Observer { return &coordinator{} }

// coordinator is Coordination's Observer. Used on bench.Run's goroutine.
type coordinator struct {
	s     *agentSync // nil until BeginBench, and for a run that is no agent's
	whole bench.Config
	err   error // the error the runs ended with
}

// Slice is this agent's slice of the whole load.
func (c *coordinator) Slice(whole bench.Config) bench.Config { return slice(whole) }

func (c *coordinator) BeginRun(context.Context, bench.RunInfo)                   {}
func (c *coordinator) EndRun(context.Context, bench.RunInfo, *result.Run, error) {}
func (c *coordinator) CleanedUp(ctx context.Context, b *bench.BenchInfo, _ time.Duration, err error) {
	if c.s == nil || err != nil {
		return
	}
	if msg := cleanLost(ctx, b, c.err); msg != "" {
		b.Note(msg)
	}
}

// BeginBench joins the other agents.
func (c *coordinator) BeginBench(ctx context.Context, b *bench.BenchInfo) error {
	c.whole = b.Config()
	if c.whole.Agent.Count < 2 {
		return nil
	}
	s, err := joinAgents(ctx, b.Cluster().Cli, &c.whole)
	if err != nil {
		return err
	}
	c.s = s
	return nil
}

// Ready waits for the other agents before a run: barrier warmup-N before
// a warm-up, run-N before a measured run (N measured runs before it).
func (c *coordinator) Ready(ctx context.Context, r bench.RunInfo) error {
	if c.s == nil {
		return nil
	}
	name := fmt.Sprintf("run-%d", r.Index)
	if r.Warmup {
		name = fmt.Sprintf("warmup-%d", r.Index)
	}
	return c.s.ready(ctx, name)
}

// EndRuns passes the last barrier, or tells the others why this agent
// stopped, and records the agent's part of the result.
func (c *coordinator) EndRuns(ctx context.Context, b *bench.BenchInfo, err error) error {
	if c.s == nil {
		return err
	}
	c.err = c.s.end(ctx, b.Document(), err)
	b.Document().Agent = c.s.record(&c.whole)
	return c.err
}

// EndBench leaves: the lease is revoked, every coordination key goes.
func (c *coordinator) EndBench() {
	if c.s != nil {
		c.s.close()
	}
}

// cleanLost deletes the keys of an agent that died (its lease expired)
// without deleting them itself, and says so; "" when there was none.
func cleanLost(ctx context.Context, b *bench.BenchInfo, runErr error) string {
	var lost *LostError
	if !errors.As(runErr, &lost) || lost.Index < 0 || !lost.Died {
		return ""
	}
	p := SubPrefix(b.Config().Prefix, lost.Index)
	msg, err := b.Cluster().Cleanup(ctx, p, false)
	if err != nil {
		return fmt.Sprintf("agent %d died; deleting its keys under %s failed: %v", lost.Index, p, err)
	}
	return fmt.Sprintf("agent %d died; its keys: %s", lost.Index, msg)
}
