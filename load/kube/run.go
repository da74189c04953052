package kube

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
)

// Bounds of the run's own phases (not Kubernetes'): caches' first lists
// and node registration, the teardown through the garbage collector, and
// the final cleanup.
const (
	setupTimeout    = 2 * time.Minute
	teardownTimeout = 5 * time.Minute
	cleanupTimeout  = time.Minute
	registerWorkers = 32
)

// ErrNotEmpty is returned when the run's prefix already holds keys: the
// run deletes everything under it at the end.
var ErrNotEmpty = errors.New("kube: the run's /registry prefix is not empty")

// Run runs the workload once against cli's cluster and returns the run:
// Stats over every request, Ops per verb and resource, and Kube. It
// removes what it wrote under s.Prefix before returning, also when ctx is
// cancelled, and the goroutines it started (its watch streams' included)
// have ended when it returns. cli is shared; Run does not close it.
func Run(ctx context.Context, cli *clientv3.Client, s Spec) (run result.Run, err error) {
	s = withDefaults(s)
	if err := validate(s); err != nil {
		return result.Run{}, err
	}
	k := keys{root: s.Prefix + "/registry/"}
	if err := checkEmpty(ctx, cli, k, s.RequestTimeout); err != nil {
		return result.Run{}, err
	}
	start := time.Now()
	rec := load.NewRecorder(len(opNames()), start)
	lag, granted := newLagTracker(), &grantedLeases{}
	st := newStore(cli, s.KV, k, rec, s.RequestTimeout, lag, s.APIServers)
	if s.Live != nil {
		stopLive := s.Live.Track(rec, st.ops.names, st.inFlight)
		defer stopLive() // after the control plane stopped (deferred below, run first)
	}
	cp := newControlPlane(s, st, granted)
	if s.Live != nil {
		detach := s.Live.Attach(newAPIMetrics(st, cp.apis))
		defer detach()
	}
	cp.tr = newTracker(cp.apis[0], s.Progress)

	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stop()
		wg.Wait()
		_ = st.watcher.Close() // its streams ended with runCtx: no error to report
		if cerr := cleanup(context.WithoutCancel(ctx), cli, k, granted); cerr != nil && err == nil {
			err = cerr
		}
	}()
	cp.routePods(runCtx, &wg)
	for _, a := range cp.apis {
		a.start(runCtx, &wg)
	}
	if err := cp.setup(runCtx, &wg); err != nil {
		return result.Run{}, err
	}
	for _, ev := range cp.events {
		ev.run(runCtx, &wg)
	}
	for _, f := range cp.starters {
		f(runCtx, &wg)
	}
	for _, h := range cp.leases {
		wg.Go(func() { h.run(runCtx) })
	}

	kr := &result.KubeRun{Mode: s.Mode, Pods: s.Deployments * s.Replicas}
	t0 := time.Now()
	services := map[string]int{}
	if s.Services {
		for i := range s.Deployments {
			services[appName(i)] = s.Replicas
		}
	}
	cp.tr.begin(t0, kr.Pods, s.Deployments, services)
	if err := cp.apply(runCtx, 0, s.Deployments); err != nil {
		return result.Run{}, err
	}
	switch s.Mode {
	case ModeManifest:
		if kr.Pods > 0 {
			wait := time.NewTimer(s.Timeout)
			select {
			case <-cp.tr.done:
			case <-wait.C:
				run.StoppedEarly = fmt.Sprintf("not every pod was Ready with its endpoints complete within %s", s.Timeout)
			case <-ctx.Done():
				run.StoppedEarly = "cancelled"
			}
			wait.Stop()
		}
	case ModeSteady:
		if err := cp.steady(runCtx, s.Duration, s.ChurnPerMinute); err != nil && ctx.Err() == nil {
			return result.Run{}, err
		}
		if ctx.Err() != nil {
			run.StoppedEarly = "cancelled"
		}
	}
	kr.PodsReady = cp.podsReady()
	if n, err := countAll(context.WithoutCancel(ctx), cli, k, s.RequestTimeout); err == nil {
		kr.Objects = n
	}
	if s.Teardown && ctx.Err() == nil {
		if err := cp.teardown(runCtx); err != nil && run.StoppedEarly == "" {
			run.StoppedEarly = err.Error()
		}
	}
	end := time.Now()
	stop()
	wg.Wait()

	kr.Milestones, kr.TimeToReadySeconds = cp.tr.result()
	if s.Mode != ModeManifest || kr.PodsReady < kr.Pods {
		kr.TimeToReadySeconds = 0
	}
	kr.NotEtcdSeconds = (s.ImagePull + s.ContainerStart).Seconds()
	kr.Conflicts = st.conflicts.Load()
	kr.WatchLag, kr.WatchEvents = lag.summary()
	kr.Components = cp.results()
	kr.EtcdRequests = st.etcd.result()
	run = result.Run{Name: "kube " + s.Mode, Conns: 1, Clients: len(cp.comps), Start: start, End: end,
		Stats: rec.Stats(-1, end.Sub(start)), StoppedEarly: run.StoppedEarly, Kube: kr}
	for i, name := range st.ops.names {
		if o := rec.Stats(i, end.Sub(start)); o.Requests > 0 || len(o.Errors) > 0 {
			run.Ops = append(run.Ops, result.Op{Name: name, Stats: o})
		}
	}
	p99, n := cp.tr.startupP99()
	kr.SLOs = slos(run.Ops, p99, n)
	if u := st.unknownOps.Load(); u > 0 {
		return run, fmt.Errorf("kube: %d requests of an operation missing from the table", u)
	}
	return run, nil
}

// appName is the i-th deployment's (and its service's) name.
func appName(i int) string { return fmt.Sprintf("app-%03d", i) }

// setup creates the namespaces and registers every node, then waits until
// the caches have listed and seen every node.
func (cp *controlPlane) setup(ctx context.Context, wg *sync.WaitGroup) error {
	sctx, cancel := context.WithTimeout(ctx, setupTimeout)
	defer cancel()
	for _, a := range cp.apis {
		if err := a.synced(sctx); err != nil {
			return fmt.Errorf("kube: watch caches did not list: %w", err)
		}
	}
	for _, ns := range []string{cp.s.Namespace, nodeLeaseNamespace, leaseNamespace} {
		if _, err := cp.apis[0].create(sctx, cp.user, resNamespaces, newNamespace(ns, time.Now())); err != nil && !isAlreadyExists(err) {
			return err
		}
	}
	// The serviceaccount controller's "default" ServiceAccount of the
	// manifest's namespace, which its pods' TokenRequests read.
	if _, err := cp.apis[0].create(sctx, cp.user, resServiceAccounts, newServiceAccount(cp.s.Namespace, time.Now())); err != nil && !isAlreadyExists(err) {
		return err
	}
	jobs := make(chan *kubelet)
	errs := make(chan error, len(cp.kubelets))
	var rw sync.WaitGroup
	for range min(registerWorkers, len(cp.kubelets)) {
		rw.Go(func() {
			for k := range jobs {
				errs <- k.register(sctx)
			}
		})
	}
	for _, k := range cp.kubelets {
		jobs <- k
	}
	close(jobs)
	rw.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return fmt.Errorf("kube: registering nodes: %w", err)
		}
	}
	for _, k := range cp.kubelets {
		k.run(ctx, wg)
	}
	for _, a := range cp.apis {
		for a.cache(resNodes).len() < len(cp.kubelets) {
			if sleep(sctx, 10*time.Millisecond); sctx.Err() != nil {
				return fmt.Errorf("kube: nodes did not reach the watch caches: %w", sctx.Err())
			}
		}
	}
	return nil
}

// apply creates deployments [from, to) and their services, as kubectl
// apply of the manifest does, one after the other.
func (cp *controlPlane) apply(ctx context.Context, from, to int) error {
	a := cp.apis[0]
	for i := from; i < to; i++ {
		name := appName(i)
		if _, err := a.create(ctx, cp.user, resDeployments, newDeployment(cp.s.Namespace, name, int32(cp.s.Replicas), time.Now())); err != nil {
			return err
		}
		if cp.s.Services {
			if _, err := a.create(ctx, cp.user, resServices, newService(cp.s.Namespace, name, time.Now())); err != nil {
				return err
			}
		}
	}
	return nil
}

// remove deletes deployment i and its service (the garbage collector
// takes the rest).
func (cp *controlPlane) remove(ctx context.Context, i int) error {
	a := cp.apis[0]
	if err := a.remove(ctx, cp.user, resDeployments, cp.s.Namespace, appName(i)); err != nil && !isNotFound(err) {
		return err
	}
	if cp.s.Services {
		if err := a.remove(ctx, cp.user, resServices, cp.s.Namespace, appName(i)); err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}

// steady keeps the cluster running for d, deleting and re-creating one
// deployment (with its service) churn times a minute, in turn.
func (cp *controlPlane) steady(ctx context.Context, d time.Duration, churn float64) error {
	end := time.NewTimer(d)
	defer end.Stop()
	if churn <= 0 || cp.s.Deployments == 0 {
		select {
		case <-end.C:
		case <-ctx.Done():
		}
		return nil
	}
	t := time.NewTicker(time.Duration(float64(time.Minute) / churn))
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-end.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		n := i % cp.s.Deployments
		if err := cp.remove(ctx, n); err != nil {
			return err
		}
		if err := cp.apply(ctx, n, n+1); err != nil && !isAlreadyExists(err) {
			return err
		}
	}
}

// teardown deletes the manifest through the control plane and waits until
// every pod is gone.
func (cp *controlPlane) teardown(ctx context.Context) error {
	tctx, cancel := context.WithTimeout(ctx, teardownTimeout)
	defer cancel()
	for i := range cp.s.Deployments {
		if err := cp.remove(tctx, i); err != nil {
			return err
		}
	}
	for _, a := range cp.apis {
		for a.cache(resPods).len() > 0 || a.cache(resReplicaSets).len() > 0 {
			if sleep(tctx, 20*time.Millisecond); tctx.Err() != nil {
				return fmt.Errorf("kube: teardown: pods left after %s", teardownTimeout)
			}
		}
	}
	return nil
}

// podsReady counts the pods Ready in the tracker's cache now.
func (cp *controlPlane) podsReady() int {
	n := 0
	for _, e := range cp.apis[0].cache(resPods).all() {
		if podReady(e.obj.(*corev1.Pod)) {
			n++
		}
	}
	return n
}

func checkEmpty(ctx context.Context, cli *clientv3.Client, k keys, timeout time.Duration) error {
	n, err := countAll(ctx, cli, k, timeout)
	if err != nil {
		return fmt.Errorf("kube: checking the prefix: %w", err)
	}
	if n > 0 {
		return fmt.Errorf("%w: %d keys under %q", ErrNotEmpty, n, k.root)
	}
	return nil
}

func countAll(ctx context.Context, cli *clientv3.Client, k keys, timeout time.Duration) (int64, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := cli.Get(cctx, k.root, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return r.Count, nil
}

// cleanup revokes the event leases and deletes everything under the run's
// /registry prefix (its compaction key included), with its own deadline.
func cleanup(ctx context.Context, cli *clientv3.Client, k keys, granted *grantedLeases) error {
	ctx, cancel := context.WithTimeout(ctx, cleanupTimeout)
	defer cancel()
	var first error
	for _, id := range granted.all() {
		if _, err := cli.Revoke(ctx, id); err != nil && first == nil && !errors.Is(err, rpctypes.ErrLeaseNotFound) {
			first = err
		}
	}
	if _, err := cli.Delete(ctx, k.root, clientv3.WithPrefix()); err != nil && first == nil {
		first = err
	}
	if first != nil {
		return fmt.Errorf("kube: cleanup under %q: %w", k.root, first)
	}
	return nil
}
