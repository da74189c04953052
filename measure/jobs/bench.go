package jobs

import (
	"context"
	"io"
	"math"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// Bench is the bench job: a workload's bench: is a bench command line as
// etcd benchmark takes it, without the program name and without
// connection flags (the setup gives the cluster), with {placeholders} the
// sweep fills: "--conns=50 --clients={clients} put --val-size=256". Its
// fields are the line (a string).
type Bench struct{}

// Name is the workload's key.
func (Bench) Name() string { return "bench" }

// Fields is the line.
func (Bench) Fields() any { return "" }

// Placeholders are the line's {names}.
func (Bench) Placeholders(fields any) []string { return placeholders(fields.(string)) }

// Check checks that the line splits into words and that the sweep gives
// every placeholder values; the line itself is parsed when planned.
func (Bench) Check(c job.Checker, fields any) error {
	line := fields.(string)
	if _, err := splitLine(line); err != nil {
		return c.Errorf(nil, "%v", err)
	}
	for _, name := range placeholders(line) {
		if !c.Swept(name) {
			return c.Errorf(nil, "{%s} has no values: add %s to sweep", name, name)
		}
	}
	return nil
}

// Plan substitutes the cell's values into the line, applies the
// profile's overrides the line's subcommand has (noting each in
// p.Applied) and parses it with bench's parser.
func (Bench) Plan(p job.Cell, fields any) (job.Work, error) {
	words, err := splitLine(substitute(fields.(string), p.Params))
	if err != nil {
		return nil, p.Errorf(nil, "%v", err)
	}
	for _, o := range p.Overrides {
		// A profile's set gives a flag to the lines that have it: --total
		// to put, not to kube.
		if lineFlags(words).Lookup(o[0]) == nil {
			continue
		}
		p.Applied[o[0]] = true
		if words, err = override(words, o[0], o[1]); err != nil {
			return nil, p.Errorf(nil, "cell %s (profile %s): %v", p.ID, p.Profile, err)
		}
	}
	cl, err := parseBench(words)
	if err != nil {
		return nil, p.Errorf(nil, "cell %s (profile %s): %v", p.ID, p.Profile, err)
	}
	return &BenchWork{Line: words, Bench: cl}, nil
}

// ValidateLoadCPUs checks a load budget (job.LoadBudget): bench cells are
// the ones that can send their load from a budgeted process.
func (Bench) ValidateLoadCPUs(cores float64) error { return bench.ValidateLoadCPUs(cores) }

// BenchWork is a bench cell's work: its line as run (placeholders
// substituted, the profile's and the file's overrides applied) and its
// parse. It is not modified once planned.
type BenchWork struct {
	Line  []string
	Bench bench.CommandLine
}

// Command is the line.
func (w *BenchWork) Command() string { return "bench " + quoteLine(w.Line) }

// RunsFileFaults: the file's fault timeline runs during a bench cell's
// measured run.
func (w *BenchWork) RunsFileFaults() bool { return true }

// WritePath is the line's connections, when it gives one count.
func (w *BenchWork) WritePath() (conns int, toLeader, ok bool) {
	c := w.Bench.Config
	if len(c.Conns) != 1 {
		return 0, false, false
	}
	return c.Conns[0], c.TargetLeader, true
}

// maxThroughput is the most a closed loop reaches on loopback (bench,
// 1,000 clients: about 7,000 to 11,000 req/s; docs/benchmarks.md).
const maxThroughput = 8000.0

// Estimate models the runs: one bounded by --duration takes that, one
// bounded by --total takes total / throughput (benchThroughput), a
// warm-up likewise; each run adds its own time (job.CostBenchRun) and,
// when the setup places the leader, the placement; a line in a load
// budget adds its child agent once. A kube run is modelled by
// kubeRunTime.
func (w *BenchWork) Estimate(env job.Env) time.Duration {
	cfg := w.Bench.Config
	perRun := job.CostBenchRun.D()
	if env.Leader {
		perRun += job.CostLeaderPlacement.D()
	}
	var total time.Duration
	if env.LoadCPUs > 0 {
		total += job.CostLoadAgent.D()
	}
	if cfg.Command == bench.CmdKube {
		return total + time.Duration(cfg.Iterations)*(kubeRunTime(cfg, env)+perRun)
	}
	runTime := func(clients int, total int64, d time.Duration) time.Duration {
		t := time.Duration(float64(total) / benchThroughput(cfg, env, clients) * float64(time.Second))
		switch {
		case total == 0:
			return d
		case d > 0:
			return min(t, d)
		}
		return t
	}
	for range cfg.Conns {
		for _, clients := range cfg.Clients {
			total += time.Duration(cfg.Iterations) * (runTime(clients, cfg.Total, cfg.Duration) + perRun)
			if cfg.Warmup != "" {
				total += perRun + warmupTime(cfg.Warmup, func(n int64) time.Duration { return runTime(clients, n, 0) })
			}
		}
	}
	return total
}

// benchThroughput is a run's modelled throughput: clients / latency,
// capped at loopback's maximum, at the offered rate, and at what the
// members' CPU budgets carry (job.CostMemberPutCore per core of the
// leader's budget; job.SpreadGain more when the clients spread over
// several members instead of the leader).
func benchThroughput(cfg bench.Config, env job.Env, clients int) float64 {
	rate := math.Min(float64(clients)/env.Latency.Seconds(), maxThroughput)
	if cfg.Rate > 0 {
		rate = math.Min(rate, cfg.Rate)
	}
	if env.MemberCPUs > 0 {
		budget := env.MemberCPUs / job.CostMemberPutCore.D().Seconds()
		if !cfg.TargetLeader && env.Members > 1 {
			budget *= job.SpreadGain
		}
		rate = math.Min(rate, budget)
	}
	return rate
}

// Run runs the line against the target's cluster, with the file's fault
// timeline (t.Faults) started at the measured run, the leader placed
// before every run, live metrics, and the clean-up timed into the cell's
// overhead; with a load budget on a local cluster, in a process of its own
// (benchbudget.go).
func (w *BenchWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	if t.LoadCPUs > 0 && t.Cluster != nil {
		return w.runBudgeted(ctx, t)
	}
	cfg := w.Bench.Config
	cfg.Log = io.Discard
	obs := []bench.Observer{cleanupTimer{&t.Cell.Overhead}}
	if t.Live != nil {
		obs = append(obs, bench.ShowLive(t.Live))
	}
	if t.Cluster != nil {
		cfg.Cluster = t.Cluster
	} else {
		conn := t.Conn
		conn.DialTimeout = cfg.Conn.DialTimeout
		cfg.Conn = conn
		cfg.MetricsURLs = t.MetricsURLs
	}
	if t.Cluster != nil && t.Leader != "" {
		obs = append(obs, &bench.PlaceLeader{Cluster: t.Cluster, Member: t.Leader})
	}
	if t.Faults != nil {
		obs = append([]bench.Observer{timelineObserver{t.Faults}}, obs...)
	}
	cfg.Observers = append(slices.Clip(cfg.Observers), obs...)
	cfg.Engines = engines.All()
	return bench.Run(ctx, cfg)
}
