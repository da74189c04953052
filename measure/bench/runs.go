package bench

import (
	"context"
	"fmt"
	"io"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/observe/series"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Runs is one Run's runs as its Engine sees them: the cluster reached,
// the configuration, the observers every run passes, and the result the
// measured runs go into. Used on Run's goroutine only (the Engine's Run
// and the functions it passes to Runs.Run); a Runs lives as long as the
// Engine's Run call.
type Runs struct {
	cfg   *Config // the load this process sends (an agent's slice)
	t     *target
	doc   *result.Document
	obs   *lifecycle
	wl    load.Workload // the sessions' workload (nil for other commands)
	guard *safety.Guard // nil on a cluster etcdlab started
	seq   int64         // the next request's sequence number (sessions)
}

// Config is the configuration as validated (an agent's slice of the
// load), with Conn the connection the run uses.
func (r *Runs) Config() Config { return *r.cfg }

// Conn is how to reach the cluster (a local cluster's own client config).
func (r *Runs) Conn() etcdclient.Config { return r.t.conn }

// Client is a client of the cluster, Run's own: do not close it.
func (r *Runs) Client() *clientv3.Client { return r.t.cli }

// Local is the cluster etcdlab started (for the run, or Config.Cluster),
// or nil for a cluster it did not start (the safety rules apply).
func (r *Runs) Local() *cluster.Cluster { return r.t.local }

// Note adds a note to the result.
func (r *Runs) Note(s string) { r.doc.Notes = append(r.doc.Notes, s) }

// Log receives one-line notes for a person (Config.Log).
func (r *Runs) Log() io.Writer { return r.cfg.Log }

// Live is where the load registers its recorders for a ShowLive
// observer (load.Spec.Live), or nil.
func (r *Runs) Live() *load.Live { return r.obs.live }

// Progress returns what reports run info's progress to the observers
// (done and expected: requests, or pods Ready), or nil when no observer
// follows progress.
func (r *Runs) Progress(info RunInfo) func(done, total int64) { return r.obs.progress(info) }

// Run runs one run (a warm-up or a measured one) between the observers'
// BeginRun and EndRun, send being the load, after every Gate's Ready;
// it returns what send measured (not added to the result: Add).
func (r *Runs) Run(ctx context.Context, info RunInfo, send func() (result.Run, error)) (result.Run, error) {
	return r.obs.run(ctx, info, send)
}

// Add adds a measured run to the result.
func (r *Runs) Add(run result.Run) { r.doc.Runs = append(r.doc.Runs, run) }

// Iterate runs Config.Iterations measured runs of the same load until
// one fails or ctx ends: each is named name (" iteration=N" added with
// more than one iteration) and added to the result. one runs one
// iteration, passing the load through r.Run itself (so that it may
// prepare and tidy up around it). Its error ends the runs as a failure of
// the run, never invalid input.
func (r *Runs) Iterate(ctx context.Context, name string, one func(info RunInfo) (result.Run, error)) error {
	for it := 1; it <= r.cfg.Iterations && ctx.Err() == nil; it++ {
		n := name
		if r.cfg.Iterations > 1 {
			n += fmt.Sprintf(" iteration=%d", it)
		}
		run, err := one(RunInfo{Name: n, Index: len(r.doc.Runs)})
		if err != nil {
			return runFailure(err)
		}
		run.Name, run.Iteration = n, it
		r.Add(run)
	}
	return nil
}

// Open opens a load session for workload wl on conns connections to the
// cluster, as the sessions engine does (the transport Config.Engine asks
// for, the endpoints the run targets, PinEndpoints). The caller closes it.
func (r *Runs) Open(ctx context.Context, wl load.Workload, conns int) (*load.Session, error) {
	return r.cfg.open(ctx, r.t, wl, conns)
}

// Spec is a run's load.Spec for clients clients: the configuration's
// total, duration, rate, request timeout and canary, the live metrics'
// recorders and, on a cluster etcdlab did not start, the safety guard's
// stop. The engine sets what differs (a Curve, its own Duration).
func (r *Runs) Spec(clients int) load.Spec {
	s := r.cfg.spec(clients)
	s.Live, s.Samples = r.obs.live, r.obs.samples
	if r.guard != nil {
		s.Stop, s.StopReason = r.guard.Stop(), r.guard.Reason
	}
	return s
}

// Members is how to scrape the cluster's members (their metrics URLs,
// names and TLS), as bench's own scraper does; URLs is empty when they
// cannot be found.
func (r *Runs) Members() series.Options { return r.t.series }
