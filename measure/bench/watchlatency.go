package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// WatchOptions are watch-latency's own options (etcd benchmark's
// flags of the same names); its value size is Config.ValSize and its
// request count Config.Total (--put-total).
type WatchOptions struct {
	Streams, WatchersPerStream int
	PrevKV                     bool
	PutTotal                   int
	PutRate                    int
}

// validate checks watch-latency's options; errors name Config's fields.
func (w WatchOptions) validate() error {
	for _, f := range []struct {
		field string
		n     int
	}{{"Streams", w.Streams}, {"WatchersPerStream", w.WatchersPerStream}, {"PutTotal", w.PutTotal}, {"PutRate", w.PutRate}} {
		if f.n < 1 {
			return invalid.Errorf("{"+f.field+"} must be at least 1, not %d", f.n)
		}
	}
	return nil
}

// WatchLatency is the Engine of etcd benchmark's watch-latency: per
// connection count, the iterations of load.RunWatchLatency. A stateless
// value.
type WatchLatency struct{}

// Name names the engine.
func (WatchLatency) Name() string { return "watch-latency" }

// For accepts watch-latency.
func (WatchLatency) For(c *Config) bool { return c.Command == CmdWatchLatency }

// EstimateBytes is the puts of every run, one key each.
func (WatchLatency) EstimateBytes(cfg *Config, keysPerReq float64) int64 {
	return cfg.sweepEstimate(keysPerReq, true)
}

// Run runs each connection count's iterations.
func (WatchLatency) Run(ctx context.Context, r *Runs) error {
	cfg := r.cfg
	for _, conns := range cfg.Conns {
		for it := 1; it <= cfg.Iterations && ctx.Err() == nil; it++ {
			info := RunInfo{Name: runName(cfg, conns, 0, it), Index: len(r.doc.Runs)}
			run, err := r.obs.run(ctx, info, func() (result.Run, error) {
				ws := cfg.watchSpec()
				ws.Live = r.obs.live
				return load.RunWatchLatency(ctx, r.t.conn, r.t.endpoints, conns, ws)
			})
			if err != nil {
				return runFailure(err)
			}
			run.Name, run.Iteration = runName(cfg, conns, run.Clients, it), it
			r.doc.Runs = append(r.doc.Runs, run)
		}
	}
	return nil
}

// watchSpec is watch-latency's load (its Live is the run's observers').
func (cfg *Config) watchSpec() load.WatchSpec {
	return load.WatchSpec{Key: cfg.Prefix + "watch", ValueSize: cfg.ValSize, Streams: cfg.Watch.Streams, WatchersPerStream: cfg.Watch.WatchersPerStream,
		PrevKV: cfg.Watch.PrevKV, PutTotal: cfg.Watch.PutTotal, PutRate: cfg.Watch.PutRate, RequestTimeout: cfg.RequestTimeout}
}
