package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// Run runs the benchmark cfg describes and returns its result. It is the
// lifecycle: validate, slice, connect, observers, safety checks, the runs,
// compaction and hash notes, clean-up; the runs themselves are the
// Engine's that sends the load (the first of Config.Engines, or Builtin,
// whose For accepts cfg), each passed through the observers.
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
	eng, err := cfg.engine()
	if err != nil {
		return nil, err
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
		if err := cfg.checkSafety(ctx, t, estimate(eng, &cfg, keysPerReq)); err != nil {
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
	r := &Runs{cfg: &cfg, t: t, doc: doc, obs: obs, wl: wl, guard: guard}
	runErr := eng.Run(ctx, r)
	if runErr == nil {
		doc.Summaries = result.Summarize(doc.Runs)
	}
	runErr = obs.endRuns(ctx, info, runErr)
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

// sweepEstimate estimates how much a sweep of runs adds to the database,
// or 0 when it cannot be told in advance (a closed-loop --duration run;
// the guard watches those); watch-latency's runs write PutTotal keys.
func (cfg *Config) sweepEstimate(keysPerReq float64, watch bool) int64 {
	requests := float64(cfg.Total)
	if cfg.Total == 0 {
		if cfg.Rate == 0 {
			return 0
		}
		requests = cfg.Rate * cfg.Duration.Seconds()
	}
	if watch {
		requests, keysPerReq = float64(cfg.Watch.PutTotal), 1
	}

	wu, _ := parseWarmup(cfg.Warmup)
	requests = requests*float64(cfg.Iterations*len(cfg.Clients)*len(cfg.Conns)) + float64(wu.count)
	return safety.Estimate(requests, keysPerReq, cfg.Prefix, cfg.KeySize, cfg.ValSize)
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
		bc.Workload = &result.Workload{Streams: cfg.Watch.Streams, WatchersPerStream: cfg.Watch.WatchersPerStream, PutTotal: cfg.Watch.PutTotal, PutRate: cfg.Watch.PutRate,
			PrevKV: new(cfg.Watch.PrevKV), ValSize: new(cfg.ValSize)}
	}
	return bc
}
