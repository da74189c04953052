package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// Run runs the benchmark cfg describes and returns its result.
//
// A configuration that cannot run (bad options, a prefix already in use, a
// load too large for the quota) is an invalid-input error (invalid.Is) that
// names Config's fields, and nothing was written. Any other error (a
// cluster that cannot be reached, a run or a clean-up that failed) is an
// ordinary error; a document returned with it holds what was measured.
// Cancelling ctx stops the run; what was measured is returned and the keys
// written are still deleted.
func Run(ctx context.Context, cfg Config) (*result.Document, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	whole := cfg // an agent runs a slice of the whole load
	obs := newLifecycle(cfg.Observers)
	if s := obs.slicer(); s != nil {
		cfg = s.Slice(cfg)
	} else if cfg.agents() {
		return nil, invalid.Errorf("an agent's runs are a slice of the load and wait for the other agents': run it with package measure/agents (agents.RunAgent), whose Observer coordinates them")
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindBench, CreatedAt: time.Now().UTC(), Environment: envinfo.Collect()}
	note := func(s string) { doc.Notes = append(doc.Notes, s) }
	if doc.Environment.LoadCPUs = cfg.LoadCPUs; cfg.LoadCPUs > 0 {
		if n := LoadBudgetNote(cfg.LoadCPUs, doc.Environment.CPUs); n != "" {
			note(n)
		}
	}
	t, err := connect(ctx, &cfg, &doc.Environment)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if cfg.ScrapeInterval > 0 {
		obs.all = append(obs.all, &scraper{o: t.series, log: cfg.Log})
	}
	if t.local != nil {
		note(fmt.Sprintf("ran against a local %d-member cluster etcdlab started in %s (%s)", doc.Environment.Members, doc.Environment.DataDir, doc.Environment.Filesystem))
	}
	whole.Conn = cfg.Conn
	doc.Bench = whole.describe()
	wl, keysPerReq := cfg.workload(note)
	info := &BenchInfo{whole: whole, t: t, doc: doc}
	if err := obs.beginBench(ctx, info); err != nil {
		return nil, err
	}
	defer obs.endBench()

	var guard *safety.Guard
	if cfg.writes() && t.local == nil {
		if err := cfg.checkSafety(ctx, t, keysPerReq); err != nil {
			return nil, obs.endRuns(ctx, info, err)
		}
		guard = t.safety().StartGuard(ctx)
		defer guard.Close()
	}

	stopCompact := make(chan struct{})
	compacted := make(chan string, 1)
	if cfg.CompactInterval > 0 {
		go func() {
			n, err := compactEvery(ctx, t, cfg.CompactInterval, cfg.CompactIndexDelta, stopCompact)
			msg := fmt.Sprintf("compacted %d times during the run (--compact-interval %s)", n, cfg.CompactInterval)
			if err != nil {
				msg += "; last error: " + err.Error()
			}
			compacted <- msg
		}()
	}
	r := &runner{cfg: &cfg, t: t, doc: doc, obs: obs, guard: guard}
	runErr := obs.endRuns(ctx, info, r.runAll(ctx, wl))
	close(stopCompact)
	if cfg.CompactInterval > 0 {
		note(<-compacted)
	}
	if cfg.CheckHashKV && runErr == nil {
		msg, err := hashKV(ctx, t)
		if err != nil {
			msg = err.Error()
		}
		note(msg)
	}

	if cfg.writes() && t.local == nil {
		switch {
		case cfg.Keep:
			fmt.Fprintf(cfg.Log, "kept the keys written under %s (--keep)\n", cfg.Prefix)
			note("keys kept under " + cfg.Prefix)
		default:
			began := time.Now()
			msg, err := t.safety().Cleanup(ctx, cfg.Prefix, cfg.Compact)
			took := time.Since(began)
			if err == nil {
				note(msg)
			}
			obs.cleanedUp(ctx, info, took, err)
			if err != nil {
				return doc, fmt.Errorf("clean up: %w", err)
			}
		}
	}
	if runErr != nil {
		return doc, runErr
	}
	return doc, nil
}

// runner is one Run's runs in progress: what every run shares. Used on
// Run's goroutine only.
type runner struct {
	cfg   *Config // the load this process sends (an agent's slice)
	t     *target
	doc   *result.Document
	obs   *lifecycle
	guard *safety.Guard // nil on a cluster etcdlab started
	seq   int64         // the next request's sequence number
}

// runAll runs every sweep point: connections, warm-up, iterations.
func (r *runner) runAll(ctx context.Context, wl load.Workload) error {
	cfg := r.cfg
	if cfg.Command == CmdKube {
		if cfg.ControlPlane == ControlPlaneReal {
			return r.runKubeReal(ctx)
		}
		return r.runKube(ctx)
	}
	for _, conns := range cfg.Conns {
		if cfg.Command == CmdWatchLatency {
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
			continue
		}
		sess, err := cfg.open(ctx, r.t, wl, conns)
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
	r.doc.Summaries = result.Summarize(r.doc.Runs)
	return nil
}

// stopped reports whether the runs end here: ctx ended or the last run
// stopped early.
func (r *runner) stopped(ctx context.Context) bool {
	return ctx.Err() != nil || (len(r.doc.Runs) > 0 && r.doc.Runs[len(r.doc.Runs)-1].StoppedEarly != "")
}

// runPoint runs every client count on one session: warm-up, then
// iterations.
func (r *runner) runPoint(ctx context.Context, sess *load.Session, conns int) error {
	cfg := r.cfg
	wu, _ := parseWarmup(cfg.Warmup)
	for _, clients := range cfg.Clients {
		spec := cfg.spec(clients)
		spec.Live = r.obs.live
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

func runName(cfg *Config, conns, clients, it int) string {
	s := fmt.Sprintf("%s conns=%d clients=%d", cfg.Command, conns, clients)
	if cfg.Iterations > 1 {
		s += fmt.Sprintf(" iteration=%d", it)
	}
	return s
}

// estimateBytes estimates how much a run adds to the database, or 0 when it
// cannot be told in advance (a closed-loop --duration run; the guard
// watches those).
func (cfg *Config) estimateBytes(keysPerReq float64) int64 {
	if cfg.Command == CmdKube {
		return cfg.kubeEstimateBytes()
	}
	requests := float64(cfg.Total)
	if cfg.Total == 0 {
		if cfg.Rate == 0 {
			return 0
		}
		requests = cfg.Rate * cfg.Duration.Seconds()
	}
	if cfg.Command == CmdWatchLatency {
		requests, keysPerReq = float64(cfg.PutTotal), 1
	}

	wu, _ := parseWarmup(cfg.Warmup)
	requests = requests*float64(cfg.Iterations*len(cfg.Clients)*len(cfg.Conns)) + float64(wu.count)
	return safety.Estimate(requests, keysPerReq, cfg.Prefix, cfg.KeySize, cfg.ValSize)
}

// watchSpec is watch-latency's load (its Live is the run's observers').
func (cfg *Config) watchSpec() load.WatchSpec {
	return load.WatchSpec{Key: cfg.Prefix + "watch", ValueSize: cfg.ValSize, Streams: cfg.Streams, WatchersPerStream: cfg.WatchersPerStream,
		PrevKV: cfg.PrevKV, PutTotal: cfg.PutTotal, PutRate: cfg.PutRate, RequestTimeout: cfg.RequestTimeout}
}

// describe records the configuration in the result, without credentials.
func (cfg *Config) describe() *result.BenchConfig {
	mode := "closed"
	if cfg.Rate > 0 {
		mode = "open"
	}
	space, _ := cfg.keySpace()
	bc := &result.BenchConfig{
		Command: cfg.Command, Args: cfg.Args, Endpoints: cfg.Conn.Endpoints, TargetLeader: cfg.TargetLeader,
		TLS: cfg.Conn.UsesTLS(), Conns: cfg.Conns, Clients: cfg.Clients, Total: cfg.Total,
		Duration: result.Duration(cfg.Duration), Rate: cfg.Rate, Mode: mode, RequestTimeout: result.Duration(cfg.RequestTimeout),
		CanaryInterval: result.Duration(cfg.Canary), PinEndpoints: cfg.PinEndpoints,
		Warmup: cfg.Warmup, Iterations: cfg.Iterations, Prefix: cfg.Prefix, Keep: cfg.Keep,
	}
	if cfg.Conn.User != "" {
		bc.User = cfg.Conn.Redacted()
	}
	switch cfg.Command {
	case CmdPut, CmdTxnPut, CmdTxnMixed:
		w := &result.Workload{KeySize: cfg.KeySize, ValSize: new(cfg.ValSize), KeySpaceSize: space, SequentialKeys: new(cfg.SequentialKeys)}
		switch cfg.Command {
		case CmdTxnPut:
			w.TxnOps = cfg.TxnOps
		case CmdTxnMixed:
			w.RWRatio, w.Limit, w.Consistency = new(cfg.RWRatio), new(cfg.Limit), cfg.Consistency
		}
		bc.Workload = w
	case CmdRange:
		bc.Workload = &result.Workload{Limit: new(cfg.Limit), Consistency: cfg.Consistency, CountOnly: new(cfg.CountOnly)}
	case CmdKube:
		k := cfg.Kube
		bc.Kube = &result.KubeConfig{Mode: k.Mode, Deployments: k.Deployments, Replicas: k.Replicas, Services: k.Services, Namespace: k.Namespace,
			Nodes: k.Nodes, PodsPerNode: k.PodsPerNode, ImagePull: result.Duration(k.ImagePull), ContainerStart: result.Duration(k.ContainerStart),
			ChurnPerMinute: k.ChurnPerMinute, ReadyTimeout: result.Duration(k.Timeout), APIServers: k.APIServers, Teardown: k.Teardown,
			HollowKubelets: k.HollowKubelets}
	case CmdWatchLatency:
		bc.Workload = &result.Workload{Streams: cfg.Streams, WatchersPerStream: cfg.WatchersPerStream, PutTotal: cfg.PutTotal, PutRate: cfg.PutRate,
			PrevKV: new(cfg.PrevKV), ValSize: new(cfg.ValSize)}
	}
	return bc
}
