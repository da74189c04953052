package bench

import (
	"context"
	"fmt"
	"time"

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
	if cfg.agents() {
		cfg = cfg.sliced()
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindBench, CreatedAt: time.Now().UTC(), Environment: envinfo.Collect()}
	note := func(s string) { doc.Notes = append(doc.Notes, s) }
	t, err := connect(ctx, &cfg, &doc.Environment)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if t.local != nil {
		note(fmt.Sprintf("ran against a local %d-member cluster etcdlab started in %s (%s)", doc.Environment.Members, doc.Environment.DataDir, doc.Environment.Filesystem))
	}
	whole.Conn = cfg.Conn
	doc.Bench = whole.describe()
	wl, keysPerReq := cfg.workload(note)

	var agent *agentSync // coordination with the other agents, if one
	if cfg.agents() {
		s, err := joinAgents(ctx, t.cli, &whole)
		if err != nil {
			return nil, err
		}
		defer s.close()
		agent = s
		defer func() { doc.Agent = s.record(&whole) }()
	}
	var guard *safety.Guard
	if cfg.writes() && t.local == nil {
		if err := cfg.checkSafety(ctx, t, keysPerReq); err != nil {
			if agent != nil {
				agent.giveUp(ctx, err.Error())
			}
			return nil, err
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
	runErr := cfg.runAll(ctx, t, wl, doc, guard, agent)
	if agent != nil {
		runErr = agent.end(ctx, doc, runErr)
	}
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
			if cfg.CleanedUp != nil {
				cfg.CleanedUp(time.Since(began))
			}
			if err != nil {
				return doc, fmt.Errorf("clean up: %w", err)
			}
			note(msg)
		}
		if agent != nil {
			if msg := cfg.cleanLostAgent(ctx, t, whole.Prefix, runErr); msg != "" {
				note(msg)
			}
		}
	}
	if runErr != nil {
		return doc, runErr
	}
	return doc, nil
}

// runAll runs every sweep point: connections, warm-up, iterations.
func (cfg *Config) runAll(ctx context.Context, t *target, wl load.Workload, doc *result.Document, guard *safety.Guard, agent *agentSync) error {
	wu, _ := parseWarmup(cfg.Warmup)
	seq := int64(0)
	if cfg.Command == CmdKube {
		return cfg.runKube(ctx, t, doc)
	}
	for _, conns := range cfg.Conns {
		if cfg.Command == CmdWatchLatency {
			for it := 1; it <= cfg.Iterations && ctx.Err() == nil; it++ {
				if cfg.RunStarted != nil {
					cfg.RunStarted(runName(cfg, conns, 0, it))
				}
				end := cfg.liveBegin(runName(cfg, conns, 0, it))
				run, err := cfg.recorded(ctx, t, func() (result.Run, error) {
					return load.RunWatchLatency(ctx, t.conn, t.endpoints, conns, cfg.watchSpec())
				})
				end()
				if err != nil {
					return runFailure(err)
				}
				run.Name, run.Iteration = runName(cfg, conns, run.Clients, it), it
				doc.Runs = append(doc.Runs, run)
			}
			continue
		}
		sess, err := cfg.open(ctx, t, wl, conns)
		if err != nil {
			return runFailure(err)
		}
		err = cfg.runPoint(ctx, t, sess, conns, doc, guard, wu, &seq, agent)
		_ = sess.Close()
		if err != nil {
			return err
		}
		if ctx.Err() != nil || (len(doc.Runs) > 0 && doc.Runs[len(doc.Runs)-1].StoppedEarly != "") {
			break
		}
	}
	doc.Summaries = result.Summarize(doc.Runs)
	return nil
}

// runPoint runs every client count on one session: warm-up, then
// iterations.
func (cfg *Config) runPoint(ctx context.Context, t *target, sess *load.Session, conns int, doc *result.Document, guard *safety.Guard, wu warmup, seq *int64, agent *agentSync) error {
	for _, clients := range cfg.Clients {
		spec := cfg.spec(clients)
		if guard != nil {
			spec.Stop, spec.StopReason = guard.Stop(), guard.Reason
		}
		if wu.count > 0 || wu.duration > 0 {
			if err := agent.ready(ctx, fmt.Sprintf("warmup-%d", len(doc.Runs))); err != nil {
				return err
			}
			ws := spec
			ws.Total, ws.Duration, ws.FirstSeq, ws.Canary = wu.count, wu.duration, *seq, 0
			ws.Progress = cfg.progress("warm-up", wu.count)
			end := cfg.liveBegin(fmt.Sprintf("%s conns=%d clients=%d warm-up", cfg.Command, conns, clients))
			w, err := sess.Run(ctx, ws)
			end()
			if err != nil {
				return runFailure(err)
			}
			*seq += w.Requests + w.Stats.ErrorCount()
		}
		for it := 1; it <= cfg.Iterations && ctx.Err() == nil; it++ {
			spec.Total, spec.Duration, spec.FirstSeq = cfg.Total, cfg.Duration, *seq
			name := runName(cfg, conns, clients, it)
			spec.Progress = cfg.progress(name, cfg.Total)
			if cfg.RunStarted != nil {
				cfg.RunStarted(name)
			}
			barrier := fmt.Sprintf("run-%d", len(doc.Runs))
			end := cfg.liveBegin(name)
			run, err := cfg.recorded(ctx, t, func() (result.Run, error) {
				// After the scraper's first scrape: agents start together.
				if err := agent.ready(ctx, barrier); err != nil {
					return result.Run{}, err
				}
				return sess.Run(ctx, spec)
			})
			end()
			if err != nil {
				return runFailure(err)
			}
			*seq += run.Requests + run.Stats.ErrorCount()
			run.Name, run.Iteration = name, it
			doc.Runs = append(doc.Runs, run)
			if run.StoppedEarly != "" {
				break
			}
		}
		if ctx.Err() != nil || (len(doc.Runs) > 0 && doc.Runs[len(doc.Runs)-1].StoppedEarly != "") {
			break
		}
	}
	return nil
}

func (cfg *Config) progress(label string, total int64) func(int64) {
	if cfg.Progress == nil {
		return nil
	}
	return func(done int64) { cfg.Progress(label, done, total) }
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

func (cfg *Config) watchSpec() load.WatchSpec {
	return load.WatchSpec{Key: cfg.Prefix + "watch", ValueSize: cfg.ValSize, Streams: cfg.Streams, WatchersPerStream: cfg.WatchersPerStream,
		PrevKV: cfg.PrevKV, PutTotal: cfg.PutTotal, PutRate: cfg.PutRate, RequestTimeout: cfg.RequestTimeout, Live: cfg.Live}
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
			ChurnPerMinute: k.ChurnPerMinute, ReadyTimeout: result.Duration(k.Timeout), APIServers: k.APIServers, Teardown: k.Teardown}
	case CmdWatchLatency:
		bc.Workload = &result.Workload{Streams: cfg.Streams, WatchersPerStream: cfg.WatchersPerStream, PutTotal: cfg.PutTotal, PutRate: cfg.PutRate,
			PrevKV: new(cfg.PrevKV), ValSize: new(cfg.ValSize)}
	}
	return bc
}
