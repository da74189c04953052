package bench

import (
	"context"
	"fmt"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// SessionOptions are what the sessions' requests carry beyond a key and a
// value (Config.KeySize, ValSize): etcd benchmark's put, range, txn-put
// and txn-mixed flags of the same names. A plain value.
type SessionOptions struct {
	// KeySpaceSize 0 means "not given": the key space is --total (or
	// 16^key-size for --duration runs), not etcd benchmark's single key.
	KeySpaceSize   int64
	SequentialKeys bool
	TxnOps         int
	RWRatio        float64
	EndKey         string
	Limit          int64
	Consistency    string
	CountOnly      bool
}

// Sessions is the Engine of etcd benchmark's commands (put, range,
// txn-put, txn-mixed, lease-keepalive) as load sessions: per connection
// count a session, per client count a warm-up and the iterations. A
// stateless value.
type Sessions struct{}

// Name names the engine.
func (Sessions) Name() string { return "sessions" }

// For accepts etcd benchmark's commands but watch-latency.
func (Sessions) For(c *Config) bool {
	switch c.Command {
	case CmdPut, CmdRange, CmdTxnPut, CmdTxnMixed, CmdLeaseKeepalive:
		return true
	}
	return false
}

// Run runs every sweep point: connections, warm-up, iterations.
func (Sessions) Run(ctx context.Context, r *Runs) error {
	for _, conns := range r.cfg.Conns {
		sess, err := r.cfg.open(ctx, r.t, r.wl, conns)
		if err != nil {
			return runFailure(err)
		}
		err = r.runPoint(ctx, sess, conns)
		_ = sess.Close()
		if err != nil {
			return err
		}
		if r.stopped(ctx) {
			break
		}
	}
	return nil
}

// EstimateBytes is the sweep's requests (warm-up included) times what
// each writes; 0 for a closed-loop --duration run.
func (Sessions) EstimateBytes(cfg *Config, keysPerReq float64) int64 {
	return cfg.sweepEstimate(keysPerReq, false)
}

// stopped reports whether the runs end here: ctx ended or the last run
// stopped early.
func (r *Runs) stopped(ctx context.Context) bool {
	return ctx.Err() != nil || (len(r.doc.Runs) > 0 && r.doc.Runs[len(r.doc.Runs)-1].StoppedEarly != "")
}

// runPoint runs every client count on one session: warm-up, then
// iterations.
func (r *Runs) runPoint(ctx context.Context, sess *load.Session, conns int) error {
	cfg := r.cfg
	wu, _ := parseWarmup(cfg.Warmup)
	for _, clients := range cfg.Clients {
		spec := cfg.spec(clients)
		spec.Live, spec.Samples = r.obs.live, r.obs.samples
		if r.guard != nil {
			spec.Stop, spec.StopReason = r.guard.Stop(), r.guard.Reason
		}
		if wu.count > 0 || wu.duration > 0 {
			info := RunInfo{Name: fmt.Sprintf("%s conns=%d clients=%d warm-up", cfg.Command, conns, clients), Warmup: true, Index: len(r.doc.Runs)}
			ws := spec
			ws.Total, ws.Duration, ws.FirstSeq, ws.Canary = wu.count, wu.duration, r.seq, 0
			ws.Progress = r.obs.loadProgress(info, wu.count)
			w, err := r.obs.run(ctx, info, func() (result.Run, error) { return sess.Run(ctx, ws) })
			if err != nil {
				return runFailure(err)
			}
			r.seq += w.Requests + w.Stats.ErrorCount()
		}
		for it := 1; it <= cfg.Iterations && ctx.Err() == nil; it++ {
			info := RunInfo{Name: runName(cfg, conns, clients, it), Index: len(r.doc.Runs)}
			spec.Total, spec.Duration, spec.FirstSeq = cfg.Total, cfg.Duration, r.seq
			spec.Progress = r.obs.loadProgress(info, cfg.Total)
			run, err := r.obs.run(ctx, info, func() (result.Run, error) { return sess.Run(ctx, spec) })
			if err != nil {
				return runFailure(err)
			}
			r.seq += run.Requests + run.Stats.ErrorCount()
			run.Name, run.Iteration = info.Name, it
			r.doc.Runs = append(r.doc.Runs, run)
			if run.StoppedEarly != "" {
				break
			}
		}
		if r.stopped(ctx) {
			break
		}
	}
	return nil
}

// runName names a measured run of a sweep point.
func runName(cfg *Config, conns, clients, it int) string {
	s := fmt.Sprintf("%s conns=%d clients=%d", cfg.Command, conns, clients)
	if cfg.Iterations > 1 {
		s += fmt.Sprintf(" iteration=%d", it)
	}
	return s
}
