package bench

import (
	"context"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/load"
	"github.com/prometheus/client_golang/prometheus"
)

// liveTotals gathers l and returns etcdlab_requests_total by operation
// and outcome; it fails on a run_info left after the runs ended.
func liveTotals(t *testing.T, l *load.Live) map[string]map[string]float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(l); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]float64{}
	for _, mf := range mfs {
		switch mf.GetName() {
		case "etcdlab_run_info":
			t.Errorf("run_info after the runs ended: %v", mf)
		case "etcdlab_requests_total":
			for _, m := range mf.GetMetric() {
				var op, outcome string
				for _, lp := range m.GetLabel() {
					switch lp.GetName() {
					case "op":
						op = lp.GetValue()
					case "outcome":
						outcome = lp.GetValue()
					}
				}
				if out[op] == nil {
					out[op] = map[string]float64{}
				}
				out[op][outcome] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestLiveTotals runs bench's workloads with a Live: after sweeps,
// warm-ups and iterations, its counters are every request of every run
// (warm-ups too), by the operation names of the results.
func TestLiveTotals(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{})
	for _, tc := range []struct {
		command string
		warmup  int64 // requests of each warm-up
		ops     []string
		runs    int // watch-latency sweeps connections only
	}{
		{CmdPut, 50, []string{"put"}, 4},
		{CmdTxnMixed, 0, []string{"read", "write"}, 4},
		{CmdWatchLatency, 0, []string{"put", "watch"}, 2},
	} {
		t.Run(tc.command, func(t *testing.T) {
			t.Parallel()
			cfg := baseConfig(c, tc.command)
			cfg.Prefix = "/live-" + tc.command + "/"
			cfg.Clients, cfg.Iterations = []int{1, 3}, 2
			if tc.warmup > 0 {
				cfg.Warmup = "50"
			}
			l := load.NewLive(LiveOptions(cfg))
			cfg.Observers = []Observer{ShowLive(l)}
			doc, err := Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			// every request the results count, ok or not, by operation
			want := map[string]float64{}
			for _, r := range doc.Runs {
				if len(r.Ops) == 0 {
					want[tc.ops[0]] += float64(r.Requests + r.Stats.ErrorCount())
				}
				for _, o := range r.Ops {
					want[o.Name] += float64(o.Requests + o.Stats.ErrorCount())
				}
			}
			want[tc.ops[0]] += float64(tc.warmup * int64(len(cfg.Clients)))
			if len(doc.Runs) != tc.runs {
				t.Fatalf("%d runs, want %d", len(doc.Runs), tc.runs)
			}
			live := liveTotals(t, l)
			for _, op := range tc.ops {
				var got float64
				for _, n := range live[op] {
					got += n
				}
				if got != want[op] || got == 0 {
					t.Errorf("live %s: %v requests (%v), the results and warm-ups hold %v", op, got, live[op], want[op])
				}
			}
			if len(live) != len(tc.ops) {
				t.Errorf("live operations %v, want %v", live, tc.ops)
			}
		})
	}
}
