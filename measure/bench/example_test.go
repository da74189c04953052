package bench_test

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/result"
)

// serialReads is an Engine (the example docs/architecture.md quotes): per
// iteration, Config.Total linearizable reads of one key, one after the
// other. Run does the rest: the cluster, the safety rules, the observers,
// the clean-up and the result.
type serialReads struct{}

func (serialReads) Name() string { return "serial-reads" }

func (serialReads) For(c *bench.Config) bool { return c.Command == "serial-reads" }

func (serialReads) Run(ctx context.Context, r *bench.Runs) error {
	cfg := r.Config()
	return r.Iterate(ctx, "serial-reads", func(info bench.RunInfo) (result.Run, error) {
		return r.Run(ctx, info, func() (result.Run, error) { // BeginRun, Gates, the load, EndRun
			run := result.Run{Start: time.Now()}
			for ; run.Requests < cfg.Total && ctx.Err() == nil; run.Requests++ {
				if _, err := r.Client().Get(ctx, cfg.Prefix+"key"); err != nil {
					return run, err
				}
			}
			run.End = time.Now()
			run.DurationSeconds = run.End.Sub(run.Start).Seconds()
			run.ThroughputRPS = float64(run.Requests) / run.DurationSeconds
			return run, nil
		})
	})
}

// Registered by the caller: one line.
func Example_engine() {
	cl, _ := bench.ParseArgs([]string{"put", "--total=100"}) // the common options
	cfg := cl.Config
	cfg.Command = "serial-reads"
	cfg.Engines = append(engines.All(), serialReads{})
	_, _ = bench.Run(context.Background(), cfg)
}

// TestEngineSeam runs the example engine through bench.Run: its
// iterations are the result's runs, named by Iterate, with summaries; the
// same command without the engine is unknown.
func TestEngineSeam(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{})
	cl, err := bench.ParseArgs([]string{"--iterations=2", "put", "--total=20"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl.Config
	cfg.Command, cfg.Cluster = "serial-reads", c.Cluster
	if err := cfg.Validate(); err == nil {
		t.Fatal("serial-reads validated without its engine")
	}
	cfg.Engines = append(engines.All(), serialReads{})
	doc, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 2 || doc.Runs[1].Name != "serial-reads iteration=2" || doc.Runs[1].Iteration != 2 || doc.Runs[0].Requests != 20 || len(doc.Summaries) == 0 {
		t.Fatalf("runs %+v, summaries %d", doc.Runs, len(doc.Summaries))
	}
}
