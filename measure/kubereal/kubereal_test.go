package kubereal

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/measure/bench"
)

// TestKubeRealRefusals: what a real control plane cannot do is one line
// of invalid input, before anything starts; a cluster nobody recorded as
// a lab cluster is refused before anything is written to it.
func TestKubeRealRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"kube", "--control-plane=real", "--steady", "--duration=10s"}, "manifest only"},
		{[]string{"kube", "--control-plane=real", "--teardown"}, "Teardown"},
		{[]string{"kube", "--control-plane=real", "--image-pull=1s"}, "fake runtime"},
		{[]string{"kube", "--control-plane=real", "--kube-version=2.0"}, "not a Kubernetes version"},
		{[]string{"kube", "--control-plane=kind"}, "emulated or real"},
	} {
		cl, err := bench.ParseArgs(append([]string{"--endpoints=127.0.0.1:1"}, tc.args...))
		if err == nil {
			err = cl.Config.Validate()
		}
		if err == nil || !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want invalid input naming %q", tc.args, err, tc.want)
		}
	}
	c := clustertest.Start(t, cluster.Options{})
	cl, err := bench.ParseArgs([]string{"--endpoints=" + strings.Join(c.Client().Endpoints, ","), "kube", "--control-plane=real",
		"--state-file=" + filepath.Join(t.TempDir(), "cluster.json")})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl.Config
	cfg.Engines = engines()
	_, err = bench.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "runs only on a lab cluster") {
		t.Fatalf("a cluster not in the state file: %v", err)
	}
	c.NoKeys("/registry/")
}

// TestKubeRealControlPlane runs a small manifest through a real control
// plane (3 stacked apiservers, 2 hollow nodes) on a lab cluster: every pod
// Ready, the milestones in order, the apiservers' etcd requests (a create
// per pod, deployment and service; status writes) and the members'
// served Txns beside them, and afterwards no /registry key in the cluster.
// Skipped without the binaries in the build cache.
func TestKubeRealControlPlane(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real Kubernetes control plane")
	}
	v, _ := kubebuild.ParseVersion(kubebuild.Pinned)
	if _, ok := (kubebuild.Builder{}).Cached(v, append(kubebuild.ControlPlane(), kubebuild.Kubemark)...); !ok {
		t.Skipf("Kubernetes %s is not in the build cache (docs/kube.md)", kubebuild.Pinned)
	}
	c := clustertest.Start(t, cluster.Options{Members: 3, BaseDir: clustertest.Tmpfs(t)})
	cl, err := bench.ParseArgs([]string{"--request-timeout=10s", "kube", "--control-plane=real", "--deployments=2", "--replicas=5", "--nodes=2", "--apiservers=3"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl.Config
	cfg.Engines = engines()
	cfg.Cluster, cfg.ScrapeInterval = c.Cluster, bench.DefaultScrapeInterval
	cfg.KubeReal.Dir = t.TempDir()
	began := time.Now()
	doc, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bench kube --control-plane real: %.1f s", time.Since(began).Seconds())
	if len(doc.Runs) == 1 && doc.Runs[0].Kube != nil {
		t.Logf("milestones %+v, etcd requests %+v", doc.Runs[0].Kube.Milestones, doc.Runs[0].Kube.EtcdRequests)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Kube == nil {
		t.Fatalf("runs %+v", doc.Runs)
	}
	r := doc.Runs[0]
	k := r.Kube
	if k.Pods != 10 || k.PodsReady != 10 || k.TimeToReadySeconds <= 0 || !strings.HasPrefix(k.ControlPlane, "real: Kubernetes "+kubebuild.Pinned) {
		t.Fatalf("kube %+v", k)
	}
	// In time order; created before scheduled before Ready, which is the
	// time to Ready (a hollow pod may be Ready before its phase is Running).
	prev, at := 0.0, map[string]float64{}
	for _, m := range k.Milestones {
		if m.Seconds < prev {
			t.Errorf("milestone %s at %g s, before the previous one's %g s", m.Name, m.Seconds, prev)
		}
		prev, at[m.Name] = m.Seconds, m.Seconds
	}
	if len(k.Milestones) < 3 || !(at["pods created"] <= at["pods scheduled"] && at["pods scheduled"] <= at["pods ready"]) || at["pods ready"] != k.TimeToReadySeconds {
		t.Errorf("milestones %+v, time to Ready %g", k.Milestones, k.TimeToReadySeconds)
	}
	got := map[string]int64{}
	for _, o := range k.EtcdRequests {
		got[o.Operation+" "+o.Resource] = o.Requests
		if o.MeanSeconds <= 0 {
			t.Errorf("%s %s: mean %g", o.Operation, o.Resource, o.MeanSeconds)
		}
	}
	for op, want := range map[string]int64{"create pods": 10, "create deployments": 2, "create services": 2, "create replicasets": 2} {
		if got[op] != want {
			t.Errorf("%s: %d, want %d (%v)", op, got[op], want, got)
		}
	}
	if got["update pods"] < 10 {
		t.Errorf("update pods %d: fewer than one binding per pod (%v)", got["update pods"], got)
	}
	if r.Server == nil {
		t.Fatal("no server series")
	}
	// The load's CPU is the control plane's: more than etcdlab's watch.
	if r.LoadCPUCores < 0.1 {
		t.Errorf("load CPU %g cores: the control plane's processes not counted", r.LoadCPUCores)
	}
	var txns, events float64
	for _, m := range r.Server.Members {
		txns += m.Summary.GRPCByMethod["Txn"]
		events += m.Summary.WatchEventsSent
	}
	if events < float64(got["create pods"]) {
		t.Errorf("the members sent %g watch events, fewer than the pods created (%v)", events, got)
	}
	if txns < float64(got["create pods"]+got["update pods"]) {
		t.Errorf("members served %g Txns, fewer than the apiservers' pod creates and updates (%v)", txns, got)
	}
	c.NoKeys("/registry/")
}

// TestClaimRegistry: a killed run's control plane keys are removed by the
// next claim (a note says so), which then names this process; a live
// owner, or /registry keys nobody claimed, are refused as invalid input
// and left alone; release removes both.
func TestClaimRegistry(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{})
	cli := c.KV()
	ctx := context.Background()
	sc := safety.Cluster{Cli: cli, Endpoints: c.Client().Endpoints, Timeout: 5 * time.Second}
	init1, err := proc.Of(1)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := proc.Self()
	for _, tc := range []struct {
		name, owner string
		keys        int
		wantErr     string
		wantNote    bool
	}{
		{"a killed run's", "999999999-1", 5, "", true},
		{"a live run's", fmt.Sprintf("%d-%d", init1.PID, init1.StartTime), 5, "runs on this cluster", false},
		{"nobody's", "", 5, "already holds 5 keys", false},
		{"empty", "", 0, "", false},
	} {
		c.PutKeys("/registry/pods/default/", tc.keys)
		if tc.owner != "" {
			if _, err := cli.Put(ctx, ownerKey, tc.owner); err != nil {
				t.Fatal(err)
			}
		}
		var note string
		err := claimRegistry(ctx, sc, func(s string) { note = s })
		if (err == nil) != (tc.wantErr == "") || (err != nil && (!strings.Contains(err.Error(), tc.wantErr) || !invalid.Is(err))) || (note != "") != tc.wantNote {
			t.Errorf("%s: note %q, err %v; want error %q", tc.name, note, err, tc.wantErr)
		}
		if tc.wantErr == "" {
			if n := c.Count("/registry/"); n != 0 {
				t.Errorf("%s: %d /registry keys after the claim", tc.name, n)
			}
			r, _ := cli.Get(ctx, ownerKey)
			if len(r.Kvs) != 1 || string(r.Kvs[0].Value) != fmt.Sprintf("%d-%d", self.PID, self.StartTime) {
				t.Errorf("%s: owner %v, want this process", tc.name, r.Kvs)
			}
		} else if n := c.Count("/registry/"); n != int64(tc.keys) {
			t.Errorf("%s: refused, yet %d of %d keys left", tc.name, n, tc.keys)
		}
		if err := sc.Release(ctx, registry()); err != nil {
			t.Fatal(err)
		}
		c.NoKeys("/registry/")
		c.NoKeys(ownerKey)
	}
}

// engines is the table the CLI passes (measure/engines, which this
// package's tests cannot import).
func engines() []bench.Engine { return append(bench.Builtin(), Engine{}) }
