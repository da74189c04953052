// Package kubereal is bench kube's real control plane, an Engine of
// package measure/bench: the manifest applied through a real
// kube-apiserver, controller manager, scheduler and kubemark's hollow
// nodes (package lab/kubecp, built by lab/kubebuild) on a lab cluster's
// etcd, one fresh control plane per iteration. The run's etcd requests
// are the apiservers' own storage metrics (read through observe/metrics)
// and its milestones a watch of the namespace's pods; /registry is
// claimed through load/safety's Claim, so the next run removes a killed
// run's keys. Its options are bench.Config's Kube and KubeReal (bench
// kube's flags).
package kubereal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	"github.com/etcdlab/etcdlab/lab/kubecp"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
)

// registryPrefix is where kube-apiserver stores by default, compactRevKey
// the key its compactor keeps beside it, and ownerKey the key that
// records which etcdlab process runs a real control plane on the cluster
// ("PID-STARTTIME"), so that the keys of one that was killed (SIGKILL
// leaves no time to remove them) are removed by the next run.
const (
	registryPrefix = "/registry/"
	compactRevKey  = "compact_rev_key"
	ownerKey       = "/etcdlab/kubecp/owner"
)

// registry is the claim a real control plane's run holds on the cluster.
func registry() safety.Claim {
	return safety.Claim{Prefix: registryPrefix, Extra: []string{compactRevKey}, OwnerKey: ownerKey}
}

// Engine is bench kube --control-plane real. A stateless value: one may
// serve several runs at once.
type Engine struct{}

// Name names the engine.
func (Engine) Name() string { return "kube real" }

// For accepts bench kube with ControlPlane real.
func (Engine) For(c *bench.Config) bool {
	return c.Command == bench.CmdKube && c.ControlPlane == bench.ControlPlaneReal
}

// EstimateBytes is the emulated control plane's estimate: a real one
// writes the same objects.
func (Engine) EstimateBytes(c *bench.Config, keysPerReq float64) int64 {
	return bench.KubeEmulated{}.EstimateBytes(c, keysPerReq)
}

// Run runs bench kube's manifest through a real control plane, one fresh
// control plane per iteration, and removes everything it stored after
// each.
func (Engine) Run(ctx context.Context, r *bench.Runs) error {
	c := r.Config()
	conn := r.Conn()
	if r.Local() == nil && !labCluster(c.KubeReal.StateFile, conn.Endpoints) {
		return invalid.Errorf("{ControlPlane} real runs only on a lab cluster (the one `etcdlab cluster up` recorded in %s, or none: a cluster of the run's own): kube-apiserver writes under /registry and compacts the whole key space", c.KubeReal.StateFile)
	}
	sc := safety.Cluster{Cli: r.Client(), Endpoints: conn.Endpoints, Timeout: c.RequestTimeout}
	if err := claimRegistry(ctx, sc, r.Note); err != nil {
		return err
	}
	defer func() { _ = sc.Release(ctx, registry()) }()
	vs := c.KubeReal.Version
	if vs == "" {
		vs = kubebuild.Pinned
	}
	v, _ := kubebuild.ParseVersion(vs)
	b := kubebuild.Builder{}
	comps := append(kubebuild.ControlPlane(), kubebuild.Kubemark)
	if _, ok := b.Cached(v, comps...); !ok {
		fmt.Fprintf(r.Log(), "building Kubernetes %s (kube-apiserver, controller manager, scheduler, kubemark) from k8s.io/kubernetes: about 10 minutes on 2 cores, once\n", v)
	}
	paths, err := b.Binaries(ctx, v, comps...)
	if err != nil {
		return err
	}
	it := iteration{r: r, cfg: c, bins: kubecp.BinariesOf(paths), kubemark: paths[kubebuild.Kubemark], v: v}
	s := c.Kube
	r.Note(fmt.Sprintf("a real control plane: Kubernetes %s, %d kube-apiserver(s) (%s), kube-controller-manager, kube-scheduler, %d kubemark hollow nodes (the kubelet's code, a fake container runtime); its etcd requests are the apiservers' own metrics", v, s.APIServers, apiserverPlacement(s.APIServers), s.Nodes))
	return r.Iterate(ctx, bench.CmdKube, func(info bench.RunInfo) (result.Run, error) {
		run, err := it.run(ctx, info)
		if cerr := sc.Clear(context.WithoutCancel(ctx), registry()); cerr != nil && err == nil {
			err = fmt.Errorf("remove the control plane's keys: %w", cerr)
		}
		return run, err
	})
}

// claimRegistry makes the cluster this process's for a real control
// plane (safety.Claim on /registry/), in bench's words: a live owner or
// keys nobody claimed are invalid input, a killed run's keys removed are
// a note.
func claimRegistry(ctx context.Context, sc safety.Cluster, note func(string)) error {
	swept, err := sc.Claim(ctx, registry())
	if swept != "" {
		note(fmt.Sprintf("removed the keys of a real control plane whose etcdlab (%s) was killed", swept))
	}
	var held *safety.ClaimHeldError
	var inUse *safety.PrefixInUseError
	switch {
	case errors.As(err, &held):
		return invalid.Errorf("a real control plane of etcdlab (pid %d) runs on this cluster", held.Owner.PID)
	case errors.As(err, &inUse):
		return invalid.Errorf("the cluster already holds %d keys under %s (a control plane's): {ControlPlane} real needs a cluster without them", inUse.Keys, inUse.Prefix)
	}
	return err
}

// labCluster reports whether endpoints are the running cluster that the
// state file at path records (the same endpoints, in any order).
func labCluster(path string, endpoints []string) bool {
	if path == "" {
		return false
	}
	st, err := cluster.ReadStateFile(path)
	if err != nil || !st.Running() || len(st.Endpoints) != len(endpoints) {
		return false
	}
	return slices.Equal(slices.Sorted(slices.Values(st.Endpoints)), slices.Sorted(slices.Values(endpoints)))
}

// apiserverPlacement says which members the apiservers store in.
func apiserverPlacement(n int) string {
	if n == 1 {
		return "every endpoint"
	}
	return "one endpoint each, in turn"
}

// iteration is what every iteration of a Run shares: the built binaries.
type iteration struct {
	r        *bench.Runs
	cfg      bench.Config
	bins     kubecp.Binaries
	kubemark string
	v        kubebuild.Version
}

// run starts a control plane and its nodes, runs the manifest as one run
// and stops them.
func (it iteration) run(ctx context.Context, info bench.RunInfo) (run result.Run, err error) {
	c, r := it.cfg, it.r
	s := c.Kube
	began := time.Now()
	cp, err := kubecp.Start(ctx, kubecp.Options{Binaries: it.bins, Etcd: r.Conn(), Dir: c.KubeReal.Dir, APIServers: s.APIServers, ExtraArgs: realLimits(s.Limits)})
	if err != nil {
		return result.Run{}, startDetail(err)
	}
	defer func() {
		if serr := cp.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	if _, err := cp.StartNodes(ctx, kubecp.NodeOptions{Kubemark: it.kubemark, Count: s.Nodes, MaxPods: s.PodsPerNode, QPS: s.Limits.HollowKubelet.QPS, Burst: s.Limits.HollowKubelet.Burst}); err != nil {
		return result.Run{}, startDetail(err)
	}
	fmt.Fprintf(r.Log(), "control plane and %d nodes ready in %.1f s\n", s.Nodes, time.Since(began).Seconds())
	progress := func(int, int) {}
	if p := r.Progress(info); p != nil {
		progress = func(ready, total int) { p(int64(ready), int64(total)) }
	}
	return r.Run(ctx, info, func() (result.Run, error) {
		cpu := load.StartCPU()
		cp0, cpErr := cp.CPUSeconds()
		began := time.Now()
		run, err := realManifest(ctx, cp, s, progress)
		// What sent the requests is the control plane, not etcdlab (which
		// only watched): the load's CPU is theirs together.
		run.LoadCPUCores, run.MachineCPUCores = cpu.Cores()
		if cp1, err1 := cp.CPUSeconds(); cpErr == nil && err1 == nil && cp1 > cp0 {
			run.LoadCPUCores += (cp1 - cp0) / time.Since(began).Seconds()
		}
		if run.Kube != nil {
			run.Kube.ControlPlane = fmt.Sprintf("real: Kubernetes %s, %d kube-apiserver(s), %d hollow nodes", it.v, s.APIServers, s.Nodes)
		}
		return run, err
	})
}

// realLimits are the components' flags for the limits bench kube's
// emulated control plane runs with (kube.DefaultLimits, or as the flags
// set them), so that both run alike: the controller manager's and the
// scheduler's client limits and the controllers' workers. The hollow
// nodes get Limits.HollowKubelet, as `bench kube --hollow-kubelets`
// emulates them (kubemark's 10/20 by default).
func realLimits(l kube.Limits) map[string][]string {
	return map[string][]string{
		"kube-controller-manager": {
			fmt.Sprintf("--kube-api-qps=%g", l.ControllerManager.QPS), fmt.Sprintf("--kube-api-burst=%d", l.ControllerManager.Burst),
			fmt.Sprintf("--concurrent-deployment-syncs=%d", l.DeploymentWorkers), fmt.Sprintf("--concurrent-replicaset-syncs=%d", l.ReplicaSetWorkers),
		},
		"kube-scheduler": {fmt.Sprintf("--kube-api-qps=%g", l.Scheduler.QPS), fmt.Sprintf("--kube-api-burst=%d", l.Scheduler.Burst)},
	}
}

// startDetail adds a failed component's log tail to the error's message
// (bench's result keeps only messages); the error still wraps err.
func startDetail(err error) error {
	var se *kubecp.StartError
	if errors.As(err, &se) {
		if d := strings.TrimSpace(se.Detail()); d != "" {
			return fmt.Errorf("%w\n%s", err, d)
		}
	}
	return err
}

// realManifest applies the manifest through the control plane, waits
// until every pod is Ready (as the field report's script did) and reads
// what the apiservers sent etcd meanwhile.
func realManifest(ctx context.Context, cp *kubecp.ControlPlane, s kube.Spec, progress func(ready, total int)) (result.Run, error) {
	ns := s.Namespace
	if ns != "default" {
		if err := cp.Apply(ctx, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n"), ""); err != nil {
			return result.Run{}, err
		}
	}
	// Pods need their namespace's default service account, which a
	// controller creates: wait for it, as the run would otherwise time
	// the controller's start.
	if err := waitFor(ctx, 30*time.Second, func() bool {
		var sa struct{}
		return cp.Get(ctx, "/api/v1/namespaces/"+ns+"/serviceaccounts/default", &sa) == nil
	}); err != nil {
		return result.Run{}, fmt.Errorf("namespace %s has no default service account: %w", ns, err)
	}
	stream := &http.Client{Transport: cp.HTTPClient().Transport} // no timeout: the watch lasts the run
	admin := cp.HTTPClient()
	before, err := scrapeAPIServers(ctx, admin, cp.URLs())
	if err != nil {
		return result.Run{}, err
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	start := time.Now()
	w, err := watchPods(watchCtx, stream, cp.URL(), ns, start)
	if err != nil {
		return result.Run{}, err
	}
	total := s.Deployments * s.Replicas
	run := result.Run{Start: start}
	if err := cp.KubectlApply(ctx, kubeManifest(s.Deployments, s.Replicas, s.Services), ns); err != nil {
		return run, err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	werr := w.waitReady(waitCtx, total, progress)
	cancel()
	run.End = time.Now()
	after, err := scrapeAPIServers(ctx, admin, cp.URLs())
	if err != nil {
		return run, err
	}
	// No WatchEvents: it counts every watcher's events, and this run sees
	// one watch; the members' watch_events_sent is its figure.
	ms, ready := w.milestones(total)
	kr := &result.KubeRun{Mode: "manifest", Pods: total, PodsReady: ready, EtcdRequests: etcdOps(before, after)}
	for _, m := range ms {
		kr.Milestones = append(kr.Milestones, result.KubeMilestone{Name: m.name, Seconds: m.seconds})
	}
	for _, m := range ms {
		if m.name == stageName(nStages-1) && ready >= total {
			kr.TimeToReadySeconds = m.seconds
		}
	}
	run.Kube = kr
	run.DurationSeconds = run.End.Sub(start).Seconds()
	var sum float64
	for _, op := range kr.EtcdRequests {
		sum += op.MeanSeconds * float64(op.Requests)
		run.Requests += op.Requests
		run.Ops = append(run.Ops, result.Op{Name: op.Operation + " " + op.Resource, Stats: result.Stats{Requests: op.Requests, DurationSeconds: run.DurationSeconds}})
	}
	if run.DurationSeconds > 0 {
		run.ThroughputRPS = float64(run.Requests) / run.DurationSeconds
	}
	if run.Requests > 0 {
		run.Latency.Mean = sum / float64(run.Requests) // the only latency the apiservers' metrics give
	}
	if werr != nil {
		run.StoppedEarly = fmt.Sprintf("%d of %d pods Ready: %v", ready, total, werr)
	}
	return run, nil
}

// waitFor polls cond every 200 ms until it holds, timeout passes or ctx
// ends.
func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}
