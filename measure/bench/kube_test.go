package bench

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/load"
)

// TestKubeOnForeignCluster: bench kube's command line, parsed as a person
// types it, runs on a cluster etcdlab did not start: every pod Ready,
// requests by verb and resource, the members scraped, kube-apiserver's
// compaction off (it would compact everyone's history), and nothing left
// under the prefix.
func TestKubeOnForeignCluster(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{})
	cl, err := ParseArgs([]string{"--endpoints=" + strings.Join(c.Client().Endpoints, ","), "--prefix=/kube-test/", "--request-timeout=10s",
		"kube", "--deployments=2", "--replicas=3", "--nodes=2", "--apiservers=1"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl.Config
	cfg.ScrapeInterval = DefaultScrapeInterval
	live := load.NewLive(LiveOptions(cfg))
	cfg.Observers = []Observer{ShowLive(live)}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Kube == nil || doc.Bench.Kube == nil || doc.Bench.Kube.Replicas != 3 {
		t.Fatalf("runs %+v, bench %+v", doc.Runs, doc.Bench)
	}
	r := doc.Runs[0]
	k := r.Kube
	if k.PodsReady != 6 || k.Pods != 6 || k.TimeToReadySeconds <= 0 || r.Server == nil || r.LoadCPUCores <= 0 || r.LoadCoresLimit != runtime.GOMAXPROCS(0) {
		t.Fatalf("kube %+v, server %v, load CPU %g on %d cores", k, r.Server != nil, r.LoadCPUCores, r.LoadCoresLimit)
	}
	var creates int64
	for _, o := range r.Ops {
		if o.Name == "create pods" {
			creates = o.Requests
		}
	}
	if creates != 6 {
		t.Errorf("create pods: %d requests, want 6", creates)
	}
	// The live metrics hold every operation by its results' name.
	totals := liveTotals(t, live)
	for _, o := range r.Ops {
		if got := totals[o.Name]["ok"]; got != float64(o.Requests) {
			t.Errorf("live %s: %v ok, the result says %d", o.Name, got, o.Requests)
		}
	}
	if !strings.Contains(strings.Join(doc.Notes, "\n"), "compaction every 5 min is off") {
		t.Errorf("notes lack the compaction being off: %q", doc.Notes)
	}
	if n := clustertest.Count(t, cli, "/kube-test/"); n != 0 {
		t.Errorf("%d keys left under the prefix", n)
	}
}

// TestKubeCPUs: bench kube runs etcdlab on one core unless --cpus says
// otherwise (0: every core); other workloads leave Go's default.
func TestKubeCPUs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--endpoints=127.0.0.1:1", "kube"}, KubeCPUs},
		{[]string{"--endpoints=127.0.0.1:1", "--cpus=2", "kube"}, 2},
		{[]string{"--endpoints=127.0.0.1:1", "--cpus=0", "kube"}, 0},
		{[]string{"--endpoints=127.0.0.1:1", "put"}, 0},
		{[]string{"--endpoints=127.0.0.1:1", "--cpus=1", "put"}, 1},
	} {
		cl, err := ParseArgs(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		if cl.Output.CPUs != tc.want {
			t.Errorf("%v: --cpus %d, want %d", tc.args, cl.Output.CPUs, tc.want)
		}
	}
}
