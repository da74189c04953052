// Package replay is bench replay's engine (bench.Engine): it builds the
// profile's keyspace on the target, plays the profile open loop (package
// load/replay), and scores the replay by deriving the same figures from
// the target's metrics with the profile command's own code (package
// measure/profile) and putting them beside the profile's (Compare). It
// lives apart from measure/bench because it needs measure/profile, which
// bench does not import.
package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
	rp "github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/profile"
	"github.com/etcdlab/etcdlab/result"
)

// Engine is bench replay. A stateless value: one may serve several runs
// at once.
type Engine struct{}

// Name names the engine.
func (Engine) Name() string { return "replay" }

// For accepts bench replay.
func (Engine) For(c *bench.Config) bool { return c.Command == bench.CmdReplay }

// EstimateBytes is what the replay adds to the database: the preload and
// the run's writes (for the quota rule on a cluster etcdlab did not
// start). 0 when the profile cannot be planned (Run then says why).
func (Engine) EstimateBytes(c *bench.Config, _ float64) int64 {
	plan, err := planOf(c, false)
	if err != nil {
		return 0
	}
	return (plan.PreloadBytes() + plan.WriteBytes()) * int64(max(1, c.Iterations))
}

// planOf plans c's replay; lab says the target is a cluster etcdlab
// started (the preload then shapes its whole store: history, compaction).
func planOf(c *bench.Config, lab bool) (*rp.Plan, error) {
	o := c.Replay
	if o.Profile == nil {
		return nil, invalid.Errorf("replay needs a profile: bench replay PROFILE")
	}
	return rp.NewPlan(o.Profile, rp.Options{Prefix: c.Prefix, Speed: o.Speed, Scale: o.Scale, Duration: c.Duration, Lab: lab})
}

// Run preloads the keyspace once, then plays the profile once per
// iteration, each scored against it.
func (Engine) Run(ctx context.Context, r *bench.Runs) error {
	c := r.Config()
	plan, err := planOf(&c, r.Local() != nil)
	if err != nil {
		return err
	}
	log := r.Log()
	if n := plan.PreloadKeys(); n > 0 {
		fmt.Fprintf(log, "preloading %d keys (%s) under %s, the profile's keyspace\n", n, humanize.IBytes(uint64(plan.PreloadBytes())), c.Prefix)
		pre := r.Progress(bench.RunInfo{Name: "replay preload", Warmup: true})
		if err := plan.Preload(ctx, r.Client(), pre); err != nil {
			return fmt.Errorf("preload: %w", err)
		}
	}
	sess, err := r.Open(ctx, plan.Workload(), c.Conns[0])
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	defer func() { _ = sess.Close() }()
	fmt.Fprintf(log, "replaying %s: %.0f requests/s on average for %s (speed %g, scale %g)\n", filepath.Base(c.Replay.Path), plan.Rate(), plan.Duration(), c.Replay.Speed, c.Replay.Scale)
	return r.Iterate(ctx, bench.CmdReplay, func(info bench.RunInfo) (result.Run, error) {
		return r.Run(ctx, info, func() (result.Run, error) { return play(ctx, r, plan, sess, info) })
	})
}

// play runs one replay: the watchers and leases, the members' metrics
// before, the request mix along the curve, the metrics after, and the
// score.
func play(ctx context.Context, r *bench.Runs, plan *rp.Plan, sess *load.Session, info bench.RunInfo) (result.Run, error) {
	c := r.Config()
	bg, err := plan.Start(ctx, r.Client())
	if err != nil {
		return result.Run{}, fmt.Errorf("watchers and leases: %w", err)
	}
	members := r.Members()
	before, start, bg0 := profile.Scrape(ctx, members.URLs, members.TLS), time.Now(), bg.Stats()
	spec := r.Spec(c.Clients[0])
	spec.Total, spec.Rate, spec.Curve, spec.Duration = 0, 0, plan.Curve(), plan.Duration()
	if p := r.Progress(info); p != nil {
		total := int64(plan.Rate() * plan.Duration().Seconds())
		spec.Progress = func(done int64) { p(done, total) }
	}
	run, err := sess.Run(ctx, spec)
	after, elapsed, bg1 := profile.Scrape(ctx, members.URLs, members.TLS), time.Since(start), bg.Stats()
	if serr := bg.Stop(context.WithoutCancel(ctx)); serr != nil && err == nil {
		err = fmt.Errorf("stop the watchers and leases: %w", serr)
	}
	if err != nil {
		return run, err
	}
	rep := &result.Replay{Profile: filepath.Base(c.Replay.Path), Speed: c.Replay.Speed, Scale: c.Replay.Scale,
		PreloadKeys: plan.PreloadKeys(), PreloadBytes: plan.PreloadBytes(), Notes: plan.Notes()}
	if r.Local() == nil {
		rep.Notes = append(rep.Notes, "a cluster etcdlab did not start: its other clients' requests, keys and database count in the replay's figures, and the preload did not compact it (etcd's compaction is the whole store's)")
	}
	// The replay's own watchers and keep-alives counted the bytes they
	// received: the target's range size is etcd's sent bytes less those.
	secs := elapsed.Seconds()
	known := profile.Known{WatchBytesPerSecond: float64(bg1.WatchBytes-bg0.WatchBytes) / secs,
		KeepaliveBytesPerSecond: float64(bg1.KeepaliveBytes-bg0.KeepaliveBytes) / secs}
	got, ferr := profile.FromWindowKnown(before, after, elapsed, known)
	if ferr != nil {
		rep.Notes = append(rep.Notes, "no fidelity: "+ferr.Error())
	} else {
		if slices.Contains(c.Replay.Profile.Source.Sources, "census") {
			valuesOnly(got, plan.WriteKeyBytes())
		}
		rep.Rows = Compare(c.Replay.Profile, got, c.Replay.Scale)
	}
	for _, row := range rep.Rows {
		if row.Off {
			rep.Off++
		}
	}
	rep.Reach = reach(run, plan.Rate())
	run.Replay = rep
	return run, nil
}

// valuesOnly takes the replay's mean written key length off the target's
// write sizes, as profile took the census's mean key size off the
// source's: etcd counts key and value bytes of a put, and the replay's
// keys are longer than the source's by its prefix.
func valuesOnly(p *rp.Profile, keyBytes float64) {
	for i := range p.Operations {
		if o := &p.Operations[i]; (o.Op == rp.OpPut || o.Op == rp.OpTxn) && o.ValueBytes > keyBytes {
			o.ValueBytes -= keyBytes
		}
	}
}
