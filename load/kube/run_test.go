package kube

import (
	"context"
	"errors"
	"fmt"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// TestManifestConverges runs a small manifest on a real 3-member cluster
// behind two apiservers: every pod becomes Ready, every service's
// Endpoints and EndpointSlices fill, the chain's requests are all there,
// and nothing is left in etcd or running afterwards.
func TestManifestConverges(t *testing.T) {
	t.Parallel()
	c := startCluster(t, 3)
	cli := c.KV()
	var progress []int
	s := Spec{Prefix: "/conv", Deployments: 2, Replicas: 5, Services: true, Nodes: 2, PodsPerNode: 8, APIServers: 2,
		Timeout: 40 * time.Second, Teardown: true, Progress: func(ready, total int) { progress = append(progress, ready) }}
	// Every goroutine the run starts carries this label (a goroutine
	// inherits its creator's), the client's watch streams included; the
	// other tests' goroutines, which run beside this one, do not.
	label := pprof.Labels("kube-run", t.Name())
	var run result.Run
	var err error
	pprof.Do(context.Background(), label, func(ctx context.Context) {
		// The count sees labelled goroutines (the helper's own check):
		// this one, inside pprof.Do, and the one it starts.
		release := make(chan struct{})
		go func() { <-release }()
		if n, _ := labelled("kube-run", t.Name()); n != 2 {
			t.Errorf("labelled counts %d goroutines, want 2", n)
		}
		close(release)
		run, err = Run(ctx, cli, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	k := run.Kube
	t.Logf("time to ready %.3f s, %d requests, conflicts %d, watch events %d, milestones %+v", k.TimeToReadySeconds, run.Requests, k.Conflicts, k.WatchEvents, k.Milestones)
	for _, o := range run.Ops {
		t.Logf("%-28s %6d  p99 %.4f s", o.Name, o.Requests, o.Latency.P99)
	}
	for _, c := range k.Components {
		t.Logf("%-28s %6d requests, throttled %.3f s", c.Name, c.Requests, c.ThrottledSeconds)
	}
	if run.StoppedEarly != "" || k.Pods != 10 || k.PodsReady != 10 || k.TimeToReadySeconds <= 0 {
		t.Fatalf("stopped %q, %d of %d pods ready, time to ready %.3f s", run.StoppedEarly, k.PodsReady, k.Pods, k.TimeToReadySeconds)
	}
	var names []string
	for _, m := range k.Milestones {
		names = append(names, m.Name)
		if m.Seconds <= 0 || m.Seconds > k.TimeToReadySeconds+30 {
			t.Errorf("milestone %s at %.3f s", m.Name, m.Seconds)
		}
	}
	for _, want := range []string{msReplicaSets, msCreated, msScheduled, msRunning, msReady, msEndpoints} {
		if !slices.Contains(names, want) {
			t.Errorf("milestone %q missing from %v", want, names)
		}
	}
	ops := map[string]int64{}
	for _, o := range run.Ops {
		ops[o.Name] = o.Requests
		if o.Requests > 0 && o.Latency.P99 <= 0 {
			t.Errorf("%s: %d requests without latency", o.Name, o.Requests)
		}
	}
	for name, atLeast := range map[string]int64{
		"create deployments": 2, "create services": 2, "create replicasets": 2, "create pods": 10,
		"create pods/binding": 10, "get pods": 20, "patch pods/status": 20, "create serviceaccounts/token": 20, "update replicasets/status": 2,
		"update deployments/status": 2, "create endpoints": 2, "update endpoints": 2, "create endpointslices": 2,
		"create events": 10, "create nodes": 2, "create leases": 2, "list pods": 2, "grant leases (events)": 1,
		"delete deployments": 2, "delete replicasets": 2, "delete pods": 20, "create namespaces": 2,
	} {
		if ops[name] < atLeast {
			t.Errorf("%s: %d requests, want at least %d", name, ops[name], atLeast)
		}
	}
	var sum int64
	for _, o := range run.Ops {
		sum += o.Requests
	}
	if sum != run.Requests {
		t.Errorf("ops sum to %d requests, stats say %d", sum, run.Requests)
	}
	if k.WatchEvents < 100 || k.WatchLag == nil || k.WatchLag.P50 <= 0 {
		t.Errorf("watch lag over %d events: %+v", k.WatchEvents, k.WatchLag)
	}
	if k.Objects < 2+2+2+2+10+2+2+2+2 {
		t.Errorf("objects %d", k.Objects)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 10 {
		t.Errorf("progress %v", progress)
	}
	if len(k.SLOs) != 4 {
		t.Errorf("SLOs %+v", k.SLOs)
	}
	comps := map[string]int64{}
	for _, c := range k.Components {
		comps[c.Name] = c.Requests
		if c.Source == "" {
			t.Errorf("component %s has no source", c.Name)
		}
	}
	if comps["replicaset-controller"] < 10 || comps["kube-scheduler"] < 10 || comps["kubelet ×2"] < 60 {
		t.Errorf("component requests %v", comps)
	}
	c.NoKeys("/conv")
	leases, err := cli.Leases(context.Background())
	if err != nil || len(leases.Leases) != 0 {
		t.Fatalf("%d leases left (%v)", len(leases.Leases), err)
	}
	// Run closes its watcher before it returns, which waits for the
	// watch streams' goroutines; only gRPC's goroutine that finishes a
	// cancelled stream may still be on its way out.
	if !clustertest.Eventually(5*time.Second, func() bool { n, _ := labelled("kube-run", t.Name()); return n == 0 }) {
		n, stacks := labelled("kube-run", t.Name())
		t.Fatalf("%d goroutines of the run left after it returned:\n%s", n, stacks)
	}
}

// labelled counts the goroutines whose pprof labels hold key=value, and
// returns their stacks.
func labelled(key, value string) (int, string) {
	var all strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&all, 1)
	_, body, _ := strings.Cut(all.String(), "\n") // after "goroutine profile: total N"
	want := fmt.Sprintf("%q:%q", key, value)
	n := 0
	var stacks strings.Builder
	for rec := range strings.SplitSeq(body, "\n\n") {
		lines := strings.SplitN(rec, "\n", 3)
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "# labels:") || !strings.Contains(lines[1], want) {
			continue
		}
		count, _, _ := strings.Cut(lines[0], " @ ")
		c, err := strconv.Atoi(count)
		if err != nil {
			continue
		}
		n += c
		stacks.WriteString(rec + "\n\n")
	}
	return n, stacks.String()
}

// TestRefusesAPrefixInUse: a run never deletes keys it did not write.
func TestRefusesAPrefixInUse(t *testing.T) {
	t.Parallel()
	cli := startCluster(t, 1).KV()
	if _, err := cli.Put(context.Background(), "/used/registry/pods/x/y", "v"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), cli, Spec{Prefix: "/used", Deployments: 1, Replicas: 1, Nodes: 1}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("got %v, want ErrNotEmpty", err)
	}
	if r, _ := cli.Get(context.Background(), "/used/registry/pods/x/y"); len(r.Kvs) != 1 {
		t.Fatal("the key in use was deleted")
	}
}

// TestDefaultsAreKubernetes pins each default to Kubernetes' value (the
// sources are in defaults.go).
func TestDefaultsAreKubernetes(t *testing.T) {
	l := DefaultLimits()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"kube-controller-manager --kube-api-qps", l.ControllerManager.QPS, 20},
		{"kube-controller-manager --kube-api-burst", float64(l.ControllerManager.Burst), 30},
		{"kube-scheduler clientConnection.qps", l.Scheduler.QPS, 50},
		{"kube-scheduler clientConnection.burst", float64(l.Scheduler.Burst), 100},
		{"kubelet kubeAPIQPS", l.Kubelet.QPS, 50},
		{"kubelet kubeAPIBurst", float64(l.Kubelet.Burst), 100},
		{"kubelet eventRecordQPS", l.KubeletEvents.QPS, 50},
		{"kubelet eventBurst", float64(l.KubeletEvents.Burst), 100},
		{"--concurrent-deployment-syncs", float64(l.DeploymentWorkers), 5},
		{"--concurrent-replicaset-syncs", float64(l.ReplicaSetWorkers), 5},
		{"--concurrent-endpoint-syncs", float64(l.EndpointWorkers), 5},
		{"--concurrent-service-endpoint-syncs", float64(l.EndpointSliceWorkers), 5},
		{"SlowStartInitialBatchSize", float64(l.SlowStartInitialBatch), 1},
		{"BurstReplicas", float64(l.BurstReplicas), 500},
		{"nodeLeaseDurationSeconds", l.NodeLeaseDuration.Seconds(), 40},
		{"nodeStatusReportFrequency", l.NodeStatusReport.Seconds(), 300},
		{"nodeStatusUpdateFrequency", l.NodeStatusUpdate.Seconds(), 10},
		{"lease reuse seconds", l.EventLeaseReuse.Seconds(), 60},
		{"lease max objects", float64(l.EventLeaseMaxObjects), 1000},
		{"--event-ttl", l.EventTTL.Seconds(), 3600},
		{"compaction interval", l.CompactionInterval.Seconds(), 300},
		{"--max-endpoints-per-slice", float64(l.EndpointsPerSlice), 100},
		{"kubelet maxPods", float64(DefaultSpec().PodsPerNode), 110},
	} {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if s := withDefaults(Spec{}); s.Limits != l || s.Deployments != 10 || s.Replicas != 50 || s.Nodes != 6 {
		t.Errorf("zero spec does not take the defaults: %+v", s)
	}
}

func TestInvalidSpecs(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Spec
		want string
	}{
		{"mode", Spec{Mode: "other"}, "Mode"},
		{"capacity", Spec{Nodes: 1, PodsPerNode: 10, Deployments: 2, Replicas: 10}, "Nodes"},
		{"negative pull", Spec{ImagePull: -time.Second}, "ImagePull"},
	} {
		err := validate(withDefaults(c.s))
		if e := invalid.As(err); e == nil || !slices.Contains(e.Params(), c.want) {
			t.Errorf("%s: %v, want an invalid error naming %s", c.name, err, c.want)
		}
	}
}

// TestSlowStart checks the replicaset controller's batches: 1, 2, 4, ...
// and a stop after a failing batch.
func TestSlowStart(t *testing.T) {
	var calls atomic.Int64
	n, err := slowStart(10, 1, func() error { calls.Add(1); return nil })
	if n != 10 || err != nil || calls.Load() != 10 {
		t.Fatalf("%d created, %d calls, %v", n, calls.Load(), err)
	}
	calls.Store(0)
	n, err = slowStart(10, 1, func() error {
		if calls.Add(1) == 3 {
			return errors.New("quota")
		}
		return nil
	})
	// Batches 1, then 2 (one fails): 3 calls, 2 created, no third batch.
	if n != 2 || err == nil || calls.Load() != 3 {
		t.Fatalf("%d created, %d calls, %v", n, calls.Load(), err)
	}
}
