package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	"github.com/etcdlab/etcdlab/lab/kubecp"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Control planes of bench kube.
const (
	// ControlPlaneEmulated is load/kube's: the control loops emulated
	// against etcd directly.
	ControlPlaneEmulated = "emulated"
	// ControlPlaneReal is a real kube-apiserver, controller manager,
	// scheduler and kubemark's hollow nodes (lab/kubecp), built from
	// k8s.io/kubernetes (lab/kubebuild).
	ControlPlaneReal = "real"
)

// KubeReal configures bench kube through a real control plane.
type KubeReal struct {
	// Version is Kubernetes' ("1.34.2"); empty means kubebuild.Pinned.
	// Built (about 10 minutes on 2 cores) and cached when missing.
	Version string
	// StateFile is `cluster up`'s state file: the endpoints must be that
	// running cluster's, as the apiservers write under /registry and
	// compact the whole key space, which only a lab cluster may take. A
	// cluster started for the run (or an experiment's) needs none.
	StateFile string
	// Dir is where the control plane's run directory goes (certificates,
	// logs); empty means $TMPDIR/etcdlab-kubecp.
	Dir string
}

// registryPrefix is where kube-apiserver stores by default, and
// compactRevKey the key its compactor keeps beside it.
const (
	registryPrefix = "/registry/"
	compactRevKey  = "compact_rev_key"
)

// validateKubeReal checks what a real control plane cannot do.
func (c *Config) validateKubeReal() error {
	switch {
	case c.Kube.Mode != kube.ModeManifest:
		return invalid.Errorf("{ControlPlane} real runs the manifest only, not {Steady}")
	case c.Kube.Teardown:
		return invalid.Errorf("{ControlPlane} real does not measure a {Teardown}: the control plane and its objects are removed after each iteration")
	case c.Kube.ImagePull > 0 || c.Kube.ContainerStart > 0:
		return invalid.Errorf("{ControlPlane} real: the hollow kubelets' fake runtime starts containers at once ({ImagePull} and {ContainerStart} apply to the emulated one)")
	case c.Agent.Count > 0:
		return invalid.Errorf("{ControlPlane} real cannot be split over agents")
	}
	if c.KubeReal.Version != "" {
		if _, ok := kubebuild.ParseVersion(c.KubeReal.Version); !ok {
			return invalid.Errorf("{KubeVersion} %q is not a Kubernetes version (1.34.2)", c.KubeReal.Version)
		}
	}
	return nil
}

// runKubeReal runs bench kube's manifest through a real control plane,
// one fresh control plane per iteration, and removes everything it
// stored after each.
func (r *runner) runKubeReal(ctx context.Context) error {
	c, t, doc := r.cfg, r.t, r.doc
	if t.local == nil && !labCluster(c.KubeReal.StateFile, t.conn.Endpoints) {
		return invalid.Errorf("{ControlPlane} real runs only on a lab cluster (the one `etcdlab cluster up` recorded in %s, or none: a cluster of the run's own): kube-apiserver writes under /registry and compacts the whole key space", c.KubeReal.StateFile)
	}
	swept, err := claimRegistry(ctx, t.cli, c.RequestTimeout)
	if swept != "" {
		doc.Notes = append(doc.Notes, swept)
	}
	if err != nil {
		return err
	}
	defer func() {
		_ = releaseRegistry(context.WithoutCancel(ctx), t.cli, c.RequestTimeout)
	}()
	vs := c.KubeReal.Version
	if vs == "" {
		vs = kubebuild.Pinned
	}
	v, _ := kubebuild.ParseVersion(vs)
	b := kubebuild.Builder{}
	comps := append(kubebuild.ControlPlane(), kubebuild.Kubemark)
	if _, ok := b.Cached(v, comps...); !ok {
		fmt.Fprintf(c.Log, "building Kubernetes %s (kube-apiserver, controller manager, scheduler, kubemark) from k8s.io/kubernetes: about 10 minutes on 2 cores, once\n", v)
	}
	paths, err := b.Binaries(ctx, v, comps...)
	if err != nil {
		return err
	}
	bins := kubecp.BinariesOf(paths)
	s := c.Kube
	doc.Notes = append(doc.Notes, fmt.Sprintf("a real control plane: Kubernetes %s, %d kube-apiserver(s) (%s), kube-controller-manager, kube-scheduler, %d kubemark hollow nodes (the kubelet's code, a fake container runtime); its etcd requests are the apiservers' own metrics", v, s.APIServers, apiserverPlacement(s.APIServers), s.Nodes))
	for it := 1; it <= c.Iterations && ctx.Err() == nil; it++ {
		name := CmdKube
		if c.Iterations > 1 {
			name += fmt.Sprintf(" iteration=%d", it)
		}
		run, err := r.kubeRealIteration(ctx, RunInfo{Name: name, Index: len(doc.Runs)}, bins, paths[kubebuild.Kubemark], v)
		if cerr := removeRegistry(context.WithoutCancel(ctx), t.cli, c.RequestTimeout); cerr != nil && err == nil {
			err = cerr
		}
		if err != nil {
			return runFailure(err)
		}
		run.Name, run.Iteration = name, it
		doc.Runs = append(doc.Runs, run)
	}
	doc.Summaries = result.Summarize(doc.Runs)
	return nil
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

// kubeRealIteration starts a control plane and its nodes, runs the
// manifest as one run and stops them.
func (r *runner) kubeRealIteration(ctx context.Context, info RunInfo, bins kubecp.Binaries, kubemark string, v kubebuild.Version) (run result.Run, err error) {
	c, t := r.cfg, r.t
	s := c.Kube
	began := time.Now()
	cp, err := kubecp.Start(ctx, kubecp.Options{Binaries: bins, Etcd: t.conn, Dir: c.KubeReal.Dir, APIServers: s.APIServers, ExtraArgs: realLimits(s.Limits)})
	if err != nil {
		return result.Run{}, startDetail(err)
	}
	defer func() {
		if serr := cp.Stop(); serr != nil && err == nil {
			err = serr
		}
	}()
	if _, err := cp.StartNodes(ctx, kubecp.NodeOptions{Kubemark: kubemark, Count: s.Nodes, MaxPods: s.PodsPerNode, QPS: s.Limits.HollowKubelet.QPS, Burst: s.Limits.HollowKubelet.Burst}); err != nil {
		return result.Run{}, startDetail(err)
	}
	fmt.Fprintf(c.Log, "control plane and %d nodes ready in %.1f s\n", s.Nodes, time.Since(began).Seconds())
	progress := func(int, int) {}
	if p := r.obs.progress(info); p != nil {
		progress = func(ready, total int) { p(int64(ready), int64(total)) }
	}
	return r.obs.run(ctx, info, func() (result.Run, error) {
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
			run.Kube.ControlPlane = fmt.Sprintf("real: Kubernetes %s, %d kube-apiserver(s), %d hollow nodes", v, s.APIServers, s.Nodes)
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

// startDetail keeps a failed component's log tail in the error.
func startDetail(err error) error {
	var se *kubecp.StartError
	if errors.As(err, &se) {
		return errors.New(strings.TrimSpace(se.Error() + "\n" + se.Detail()))
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

// waitFor polls cond every 200 ms until it holds or timeout passes.
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

// ownerKey records which etcdlab process runs a real control plane on the
// cluster ("PID-STARTTIME"), so that the keys of one that was killed
// (SIGKILL leaves no time to remove them) are removed by the next run.
const ownerKey = "/etcdlab/kubecp/owner"

// claimRegistry makes the cluster this process's for a real control
// plane: a previous run's keys whose process is gone are removed (said
// in the returned note), a live one's are refused, and any other
// /registry keys are refused; then the owner key names this process.
func claimRegistry(ctx context.Context, cli *clientv3.Client, timeout time.Duration) (note string, err error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	resp, err := cli.Get(rctx, ownerKey)
	cancel()
	if err != nil {
		return "", fmt.Errorf("read %s: %w", ownerKey, err)
	}
	if len(resp.Kvs) > 0 {
		owner := string(resp.Kvs[0].Value)
		if id, ok := parseOwner(owner); ok && id.Alive() {
			return "", invalid.Errorf("a real control plane of etcdlab (pid %d) runs on this cluster", id.PID)
		}
		if err := releaseRegistry(ctx, cli, timeout); err != nil {
			return "", err
		}
		note = fmt.Sprintf("removed the keys of a real control plane whose etcdlab (%s) was killed", owner)
	}
	if err := checkNoRegistry(ctx, cli, timeout); err != nil {
		return note, err
	}
	self, err := proc.Self()
	if err != nil {
		return note, err
	}
	rctx, cancel = context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := cli.Put(rctx, ownerKey, fmt.Sprintf("%d-%d", self.PID, self.StartTime)); err != nil {
		return note, fmt.Errorf("write %s: %w", ownerKey, err)
	}
	return note, nil
}

// parseOwner reads an owner key's "PID-STARTTIME".
func parseOwner(v string) (proc.ID, bool) {
	pid, st, ok := strings.Cut(v, "-")
	p, err1 := strconv.Atoi(pid)
	t, err2 := strconv.ParseUint(st, 10, 64)
	if !ok || err1 != nil || err2 != nil || p <= 0 {
		return proc.ID{}, false
	}
	return proc.ID{PID: p, StartTime: t}, true
}

// releaseRegistry removes what a control plane stored and the owner key.
func releaseRegistry(ctx context.Context, cli *clientv3.Client, timeout time.Duration) error {
	if err := removeRegistry(ctx, cli, timeout); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := cli.Delete(ctx, ownerKey); err != nil {
		return fmt.Errorf("remove %s: %w", ownerKey, err)
	}
	return nil
}

// checkNoRegistry refuses a cluster that already holds kube-apiserver's
// keys: the control plane would adopt them, and the clean-up would
// delete them.
func checkNoRegistry(ctx context.Context, cli *clientv3.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := cli.Get(ctx, registryPrefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return fmt.Errorf("count %s keys: %w", registryPrefix, err)
	}
	if resp.Count > 0 {
		return invalid.Errorf("the cluster already holds %d keys under %s (a control plane's): {ControlPlane} real needs a cluster without them", resp.Count, registryPrefix)
	}
	return nil
}

// removeRegistry deletes what the control plane stored.
func removeRegistry(ctx context.Context, cli *clientv3.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, 2*timeout)
	defer cancel()
	if _, err := cli.Delete(ctx, registryPrefix, clientv3.WithPrefix()); err != nil {
		return fmt.Errorf("remove the control plane's keys: %w", err)
	}
	if _, err := cli.Delete(ctx, compactRevKey); err != nil {
		return fmt.Errorf("remove the control plane's keys: %w", err)
	}
	return nil
}
