package sizing

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/load/replay"
)

// benchSize is one size TestModelMatchesBenchKube runs bench kube at.
type benchSize struct {
	name                         string
	nodes, deployments, replicas int
	churnPerMinute               float64
	duration                     time.Duration
}

// TestModelMatchesBenchKube is issue 35's check of the model: bench kube
// in steady mode (real kubelets, 3 apiservers, a Service per Deployment)
// at two sizes, its etcd_requests_total over whole churn periods after the
// setup, against Model × the window: every verb and resource with at
// least 30 requests expected or measured within ±20%; the smaller pairs
// are listed. kube-controller-manager's client limit is raised (200 QPS,
// burst 300) so that the manifest's creation (3 requests a pod at 20 QPS
// otherwise) is over within the run's first seconds and the window is
// unthrottled: the model counts unthrottled writes.
func TestModelMatchesBenchKube(t *testing.T) {
	if testing.Short() {
		t.Skip("runs bench kube twice for about a minute each")
	}
	for _, z := range []benchSize{
		{"10 nodes, 100 pods", 10, 10, 10, 6, 55 * time.Second},
		{"30 nodes, 300 pods", 30, 15, 20, 6, 60 * time.Second},
	} {
		t.Run(z.name, func(t *testing.T) { checkSize(t, z) })
	}
}

func checkSize(t *testing.T, z benchSize) {
	lim := kube.DefaultLimits()
	lim.ControllerManager = kube.ClientLimits{QPS: 200, Burst: 300}
	s := kube.Spec{Prefix: "/sizing", Mode: kube.ModeSteady, Deployments: z.deployments, Replicas: z.replicas, Services: true,
		Nodes: z.nodes, PodsPerNode: kube.DefaultSpec().PodsPerNode, APIServers: 3, Duration: z.duration,
		ChurnPerMinute: z.churnPerMinute, Limits: lim}
	c := Cluster{Nodes: z.nodes, Pods: z.deployments * z.replicas, Namespaces: 3, Services: z.deployments, Deployments: z.deployments,
		APIServers: 3, Churn: z.churnPerMinute * float64(z.replicas) / 60}.WithDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	w := measureSteady(t, s, 2*time.Second)
	l := Model(c)
	secs := w.window.Seconds()
	t.Logf("window %.1f s, %d churns (%.1f s each)", secs, w.churns, secs/float64(max(1, w.churns)))
	want := map[pair]float64{}
	for _, r := range l.Rates {
		want[pair{r.Verb, r.Resource}] += r.PerSecond * secs
	}
	all := map[pair]bool{}
	for k := range want {
		all[k] = true
	}
	for k := range w.counts {
		all[k] = true
	}
	keys := make([]pair, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].resource != keys[j].resource {
			return keys[i].resource < keys[j].resource
		}
		return keys[i].verb < keys[j].verb
	})
	var small []string
	for _, k := range keys {
		got, exp := w.counts[k], want[k]
		if got < judgeAt && exp < judgeAt {
			small = append(small, fmt.Sprintf("%s %s %.0f/%.1f", k.verb, k.resource, got, exp))
			continue
		}
		ratio := got / exp
		mark := ""
		if exp == 0 || math.Abs(ratio-1) > tolerance {
			mark = "  OFF"
			t.Errorf("%s %s: bench kube %.0f, model %.1f (ratio %.2f), beyond ±%.0f%%", k.verb, k.resource, got, exp, ratio, 100*tolerance)
		}
		t.Logf("%-14s %-16s bench %6.0f  model %7.1f  ratio %.2f%s", k.verb, k.resource, got, exp, ratio, mark)
	}
	t.Logf("too small to judge (bench/model, below %d): %s", judgeAt, strings.Join(small, ", "))
}

// The check's thresholds: pairs with at least judgeAt requests expected or
// measured are judged, within ±tolerance.
const (
	judgeAt   = 30
	tolerance = 0.20
)

func TestValidate(t *testing.T) {
	ok := Defaults(100, 3000)
	if err := ok.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, c := range []struct {
		name  string
		edit  func(*Cluster)
		param string
	}{
		{"no nodes", func(c *Cluster) { c.Nodes = 0 }, "Nodes"},
		{"negative pods", func(c *Cluster) { c.Pods = -1 }, "Pods"},
		{"no services", func(c *Cluster) { c.Services = 0 }, "Services"},
		{"no apiservers", func(c *Cluster) { c.APIServers = -3 }, "APIServers"},
		{"negative watchers", func(c *Cluster) { c.WatchersPerAPIServer = -1 }, "WatchersPerAPIServer"},
		{"fewer pods than DaemonSets need", func(c *Cluster) { c.Pods = 150 }, "Pods"},
		{"more pods than max-pods", func(c *Cluster) { c.Pods = 100*110 + 1 }, "Pods"},
		{"more deployments than pods", func(c *Cluster) { c.Deployments = 3001 }, "Deployments"},
		{"negative churn", func(c *Cluster) { c.Churn = -1 }, "Churn"},
		{"churn past turnover", func(c *Cluster) { c.Churn = 51 }, "Churn"},
		{"NaN churn", func(c *Cluster) { c.Churn = math.NaN() }, "Churn"},
		{"zero pod bytes", func(c *Cluster) { c.Bytes.Pod = 0 }, "Bytes"},
		{"pod past the request limit", func(c *Cluster) { c.Bytes.Pod = 2 << 20 }, "Bytes"},
		{"create larger than running", func(c *Cluster) { c.Bytes.PodCreate = c.Bytes.Pod + 1 }, "Bytes"},
	} {
		b := ok
		c.edit(&b)
		err := b.Validate()
		e := invalid.As(err)
		if e == nil || !slices.Contains(e.Params(), c.param) {
			t.Errorf("%s: %v, want an invalid error naming %s", c.name, err, c.param)
			continue
		}
		if strings.Contains(err.Error(), "\\n") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: more than one line: %q", c.name, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	c := Defaults(1000, 30000)
	if c.Namespaces != 14 || c.Deployments != 3280 || c.Services != c.Deployments || c.APIServers != 3 || c.Churn != 4 {
		t.Errorf("defaults %+v", c)
	}
	if c.Bytes.Pod != 12000 || c.Bytes.PodCreate >= c.Bytes.Pod || c.Bytes.Lease == 0 || c.Bytes.Endpoints <= endpointsBase {
		t.Errorf("bytes %+v", c.Bytes)
	}
	src := DefaultSources()
	for _, f := range []string{"Namespaces", "Deployments", "Services", "APIServers", "WatchersPerAPIServer", "Churn", "Bytes.Pod", "Bytes.Node"} {
		if src[f] == "" {
			t.Errorf("no source for %s", f)
		}
	}
	// Given fields stay.
	if d := (Cluster{Nodes: 5, Pods: 50, Deployments: 2, Churn: 0.5}).WithDefaults(); d.Deployments != 2 || d.Churn != 0.5 || d.Services != 2 {
		t.Errorf("given fields overwritten: %+v", d)
	}
}

func TestScale(t *testing.T) {
	c := Defaults(1000, 30000)
	s := c.Scale(0.1)
	if s.Nodes != 100 || s.Pods != 3000 || s.Deployments != 328 || s.Services != 328 || s.Namespaces != 1 ||
		math.Abs(s.Churn-0.4) > 1e-9 || s.APIServers != 3 || s.Bytes != c.Bytes {
		t.Errorf("scaled %+v", s)
	}
	if s := c.Scale(0.0001); s.Nodes != 1 || s.Pods != 3 || s.Deployments != 1 || s.Namespaces != 1 {
		t.Errorf("counts must stay at least 1: %+v", s)
	}
	if s := c.Scale(2); s.Pods != 60000 || s.Churn != 8 {
		t.Errorf("doubled %+v", s)
	}
}

// TestModelRates pins the heartbeats to their sources' arithmetic and the
// pod lifecycle to bench kube's per-pod requests.
func TestModelRates(t *testing.T) {
	c := Defaults(1000, 30000)
	l := Model(c)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, want) {
			t.Errorf("%s: %g, want %g", name, got, want)
		}
	}
	leases := 1000/10.2 + 2/2.0 + 3/10.2
	near("update leases", l.Total("update", "leases"), leases)
	near("create pods", l.Total("create", "pods"), 4)
	near("update pods", l.Total("update", "pods"), 5*4)
	near("get pods", l.Total("get", "pods"), 4*4)
	near("listWithCount pods", l.Total("listWithCount", "pods"), 3.0/60)
	if l.EtcdWatches != 30 || len(l.WatchedResources) != 10 {
		t.Errorf("watches %d over %v", l.EtcdWatches, l.WatchedResources)
	}
	for _, r := range append(slices.Clone(l.Rates), l.Other...) {
		if r.Source == "" || r.What == "" || !(r.PerSecond > 0) {
			t.Errorf("rate %+v", r)
		}
	}
	if l.DBBytes <= 0 || l.Leases.Alive <= 0 || l.RevisionsPerSecond <= 0 || l.WatchEventsPerSecond <= 0 {
		t.Errorf("load %+v", l)
	}
	t.Logf("1,000 nodes, 30,000 pods, churn %g/s: writes %.1f/s, reads %.1f/s, revisions %.1f/s, watch events %.1f/s, DB %.0f MB, event leases %d",
		c.Churn, l.Writes(), l.Reads(), l.RevisionsPerSecond, l.WatchEventsPerSecond, float64(l.DBBytes)/1e6, l.Leases.Alive)
	hollow := c
	hollow.HollowKubelets = true
	if h := Model(hollow); h.Total("create", "events") >= l.Total("create", "events") {
		t.Errorf("hollow kubelets send no events: %g against %g", h.Total("create", "events"), l.Total("create", "events"))
	}
}

// TestProfileReplays: the model's profile validates and bench replay
// plans it.
func TestProfileReplays(t *testing.T) {
	for _, c := range []Cluster{Defaults(1000, 30000), Defaults(10, 100), {Nodes: 3, Pods: 6, Churn: 0.001}} {
		p := Model(c).Profile()
		if err := p.Validate(); err != nil {
			t.Fatalf("%d nodes: %v", c.Nodes, err)
		}
		pl, err := replay.NewPlan(p, replay.Options{Prefix: "/etcdlab/bench/t/"})
		if err != nil {
			t.Fatalf("%d nodes: %v", c.Nodes, err)
		}
		if pl.Rate() <= 0 || !slices.Contains(p.Source.Sources, SourceName) || p.Watches == nil || len(p.Watches.Prefixes) != 10 {
			t.Errorf("%d nodes: rate %g, profile %+v", c.Nodes, pl.Rate(), p.Source)
		}
		if _, err := replay.Marshal(p); err != nil {
			t.Error(err)
		}
		var pods *replay.Operation
		for i, o := range p.Operations {
			if o.Op == replay.OpTxn && o.Resource == "pods" {
				pods = &p.Operations[i]
			}
		}
		if pods == nil || pods.CreateValueBytes <= 0 || pods.CreateValueBytes >= pods.ValueBytes || pods.Prefix != "/registry/pods/" {
			t.Errorf("%d nodes: pods' txn row %+v", c.Nodes, pods)
		}
	}
}
