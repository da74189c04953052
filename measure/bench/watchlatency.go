package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// watchLatency is etcd benchmark's watch-latency: per connection count,
// the iterations of load.RunWatchLatency. A stateless value.
type watchLatency struct{}

func (watchLatency) Name() string { return "watch-latency" }

func (watchLatency) For(c *Config) bool { return c.Command == CmdWatchLatency }

func (watchLatency) Run(ctx context.Context, r *Runs) error {
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
	return load.WatchSpec{Key: cfg.Prefix + "watch", ValueSize: cfg.ValSize, Streams: cfg.Streams, WatchersPerStream: cfg.WatchersPerStream,
		PrevKV: cfg.PrevKV, PutTotal: cfg.PutTotal, PutRate: cfg.PutRate, RequestTimeout: cfg.RequestTimeout}
}
