package bench

import (
	"context"
	"fmt"
	"strings"
)

// Engine sends one kind of bench load: etcd benchmark's sessions
// (put, range, txn-put, txn-mixed, lease-keepalive), watch-latency, the
// emulated Kubernetes control plane, or one outside this package (the
// real control plane, package measure/kubereal). Run does everything
// around the engine (the cluster, the safety rules, the observers, the
// clean-up, the result); the engine decides what one run is and how many
// there are, and passes each through Runs.Run so that every observer sees
// it.
//
// Engines are values in a table, never registered globally: Run picks the
// first of Config.Engines (Builtin when nil) whose For accepts the
// configuration; the CLI and the experiment runner pass the table of
// package measure/engines, which adds the engines of packages this
// one cannot import. An Engine keeps nothing between calls, so one value
// may serve several Runs at once.
type Engine interface {
	// Name names the engine in messages ("sessions", "kube real").
	Name() string
	// For reports whether the engine sends cfg's load (its Command and
	// the options that choose between engines, as ControlPlane).
	For(cfg *Config) bool
	// Run sends every run of the load, each through r.Run (warm-ups
	// too), and adds the measured ones to the result (r.Add, or
	// r.Iterate which does both). It is called on Run's goroutine once
	// the cluster is reached and the safety checks passed; an error ends
	// the runs (Run keeps what was added). Errors are failures of the
	// run, not invalid input (r.Iterate says so for the errors it
	// returns).
	Run(ctx context.Context, r *Runs) error
}

// Estimator is an Engine that tells, before anything is written, how many
// bytes its load adds to the database, for the quota rule on a cluster
// etcdlab did not start (load/safety's CheckQuota, with every agent's
// share). keysPerReq is what the sessions' workload writes per request.
// Without an Estimator, or at 0, only the guard watches the database
// during the runs, as for a closed-loop --duration run.
type Estimator interface {
	EstimateBytes(cfg *Config, keysPerReq float64) int64
}

// estimate is eng's estimate of what cfg's load adds to the database.
func estimate(eng Engine, cfg *Config, keysPerReq float64) int64 {
	if e, ok := eng.(Estimator); ok {
		return e.EstimateBytes(cfg, keysPerReq)
	}
	return 0
}

// Builtin is the engines of this package, in the order Run tries them:
// sessions, watch-latency and the emulated kube control plane.
func Builtin() []Engine { return []Engine{Sessions{}, WatchLatency{}, KubeEmulated{}} }

// NoEngineError says that no engine of Config.Engines sends the
// configured load (the real control plane's engine lives in package
// measure/kubereal: pass package measure/engines' table).
type NoEngineError struct {
	Command string
	Engines []string
}

func (e *NoEngineError) Error() string {
	return fmt.Sprintf("no engine sends bench %s here (engines: %s); the CLI's table is package measure/engines' All", e.Command, strings.Join(e.Engines, ", "))
}

// engine is the first engine of c.Engines (or Builtin) that sends c's load.
func (c *Config) engine() (Engine, error) {
	all := c.Engines
	if all == nil {
		all = Builtin()
	}
	var names []string
	for _, e := range all {
		if e.For(c) {
			return e, nil
		}
		names = append(names, e.Name())
	}
	cmd := c.Command
	if c.Command == CmdKube && c.ControlPlane != "" {
		cmd += " --control-plane " + c.ControlPlane
	}
	return nil, &NoEngineError{Command: cmd, Engines: names}
}
