package kube

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Jitter of the kubelet's periodic loops (wait.JitterUntil with 0.04 for
// the node lease and node status, pkg/kubelet).
const kubeletJitter = 0.04

// kubelet is one emulated node's kubelet: it registers its Node and
// Lease, renews the Lease every quarter of its duration, reports node
// status when it changed or NodeStatusReport passed (both through its
// heartbeat client, which has no rate limit: cmd/kubelet/app/server.go
// sets its QPS to -1), and takes the pods bound to it through the pod
// worker's statuses (Pending with containers creating, then Running and
// Ready), which its status manager writes (statusManager). Mounting a
// pod's projected service-account token is a TokenRequest. Its events go
// through their own client (eventRecordQPS); a hollow kubelet sends none.
// Safe for concurrent use.
type kubelet struct {
	i    int
	name string
	api  *apiserver
	cl   *client
	hb   *client
	ev   *eventRecorder
	s    *Spec
	sm   *statusManager
	// relist is when the PLEG's relist loop started (set once, before
	// any pod): it relists every plegRelistPeriod from then.
	relist time.Time

	mu          sync.Mutex
	started     map[string]bool
	terminating map[string]bool
	nPods       int
	lease       entry
	nodeUID     string
	lastReport  time.Time
}

// plegRelistPeriod is how often the generic PLEG relists the runtime's
// containers (genericPlegRelistPeriod, pkg/kubelet/kubelet.go): a started
// container is seen, and the pod synced again, at the next relist.
const plegRelistPeriod = time.Second

func newKubelet(i int, api *apiserver, cl, hb, evcl *client, s *Spec) *kubelet {
	name := fmt.Sprintf("node-%04d", i)
	k := &kubelet{i: i, name: name, api: api, cl: cl, hb: hb, ev: newEventRecorder(api, evcl, "kubelet", name), s: s,
		started: map[string]bool{}, terminating: map[string]bool{},
		relist: time.Now().Add(-time.Duration(rand.Int64N(int64(plegRelistPeriod))))}
	k.sm = newStatusManager(k)
	return k
}

// register creates the Node and its Lease and writes the first status.
func (k *kubelet) register(ctx context.Context) error {
	now := time.Now()
	node, err := k.api.create(ctx, k.hb, resNodes, newNode(k.name, k.i, k.s.PodsPerNode, now))
	if err != nil && !isAlreadyExists(err) {
		return err
	}
	uid := ""
	if node.obj != nil {
		uid = string(node.obj.GetUID())
	}
	lease, err := k.api.create(ctx, k.hb, resLeases, newLease(k.name, types.UID(uid), k.s.Limits.NodeLeaseDuration, now))
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.lease, k.nodeUID = lease, uid
	k.mu.Unlock()
	return k.reportStatus(ctx)
}

// run renews the lease and reports node status until ctx ends.
func (k *kubelet) run(ctx context.Context, wg *sync.WaitGroup) {
	k.ev.run(ctx, wg)
	wg.Go(func() { k.sm.run(ctx) })
	renew := k.s.Limits.NodeLeaseDuration / 4 // nodeLeaseRenewIntervalFraction 0.25
	wg.Go(func() { jitterLoop(ctx, renew, func() { _ = k.renewLease(ctx) }) })
	wg.Go(func() {
		jitterLoop(ctx, k.s.Limits.NodeStatusUpdate, func() {
			k.mu.Lock()
			due := time.Since(k.lastReport) >= k.s.Limits.NodeStatusReport
			k.mu.Unlock()
			if due {
				_ = k.reportStatus(ctx)
			}
		})
	})
}

// jitterLoop calls f every period (plus up to 4% jitter), the first time
// after a random part of the period so that many kubelets spread out.
func jitterLoop(ctx context.Context, period time.Duration, f func()) {
	sleep(ctx, time.Duration(rand.Int64N(int64(period))))
	for ctx.Err() == nil {
		f()
		sleep(ctx, period+time.Duration(rand.Float64()*kubeletJitter*float64(period)))
	}
}

// renewLease updates the Lease's renewTime from the kubelet's own last
// copy (the lease controller keeps it), as an update of leases.
func (k *kubelet) renewLease(ctx context.Context) error {
	k.mu.Lock()
	cached := k.lease
	k.mu.Unlock()
	if err := k.hb.wait(ctx); err != nil {
		return err
	}
	key := k.api.st.keys.key(resLeases, nodeLeaseNamespace, k.name)
	e, err := k.api.st.update(ctx, "update leases", resLeases, key, &cached, 0, func(cur object) (object, error) {
		l := cur.(*coordinationv1.Lease)
		now := metav1.NewMicroTime(time.Now())
		l.Spec.RenewTime = &now
		return l, nil
	})
	if err == nil {
		k.mu.Lock()
		k.lease = e
		k.mu.Unlock()
	}
	return err
}

// reportStatus patches nodes/status with fresh heartbeats (the kubelet
// reads its Node from the apiserver's cache first, resourceVersion 0).
func (k *kubelet) reportStatus(ctx context.Context) error {
	err := k.api.update(ctx, k.hb, "patch nodes/status", resNodes, "", k.name, func(cur object) (object, error) {
		n := cur.(*corev1.Node)
		setNodeConditions(n, time.Now())
		setManaged(n, managed("kubelet", "status", `{"f:status":{"f:conditions":{"k:{\"type\":\"DiskPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"MemoryPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"PIDPressure\"}":{"f:lastHeartbeatTime":{}},"k:{\"type\":\"Ready\"}":{"f:lastHeartbeatTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{}}},"f:images":{},"f:nodeInfo":{"f:bootID":{}}}}`, time.Now()))
		return n, nil
	})
	if err == nil {
		k.mu.Lock()
		k.lastReport = time.Now()
		k.mu.Unlock()
	}
	return err
}

// onPod is called for every event of a pod bound to this node.
func (k *kubelet) onPod(ctx context.Context, wg *sync.WaitGroup, e watchEvent) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if e.kind == evDeleted {
		delete(k.started, e.key)
		delete(k.terminating, e.key)
		// The housekeeping's RemoveOrphanedStatuses forgets a gone pod's status.
		k.sm.drop(e.old.obj.GetUID())
		return
	}
	p := e.cur.obj.(*corev1.Pod)
	switch {
	case p.DeletionTimestamp != nil && !k.terminating[e.key]:
		k.terminating[e.key] = true
		wg.Go(func() { k.terminate(ctx, p) })
	case p.DeletionTimestamp == nil && !k.started[e.key]:
		k.started[e.key] = true
		n := k.nPods
		k.nPods++
		wg.Go(func() { k.startPod(ctx, p, podIP(k.i, n)) })
	}
}

// startPod is the pod worker's first SyncPod and the one after the
// container started (pkg/kubelet/kubelet.go SyncPod): the status it
// generates first (Pending, ContainerCreating) goes to the status manager
// before anything else; then the volume manager mounts the projected
// service-account token (a TokenRequest, pkg/kubelet/token/
// token_manager.go GetServiceAccountToken), the image is pulled and the
// container started (the spec's ImagePull and ContainerStart, 0 by
// default: a hollow kubelet's fake runtime starts it at once), and the
// next PLEG relist sees it running, so the next SyncPod's status (Running
// and Ready) goes to the status manager.
func (k *kubelet) startPod(ctx context.Context, p *corev1.Pod, ip string) {
	k.sm.set(p, stageCreating, "")
	if err := retrySync(ctx, podSyncBackoff, func() error { return k.api.tokenRequest(ctx, k.cl, p) }); err != nil {
		return
	}
	c := p.Spec.Containers[0]
	sleep(ctx, k.s.ImagePull)
	if !k.s.HollowKubelets { // a hollow kubelet's recorder is a FakeRecorder (pkg/kubemark/hollow_kubelet.go)
		msg := fmt.Sprintf("Container image %q already present on machine", c.Image)
		if k.s.ImagePull > 0 {
			msg = fmt.Sprintf("Successfully pulled image %q in %s", c.Image, k.s.ImagePull)
		}
		k.ev.emit(p, "Pod", "v1", "Pulled", msg)
		k.ev.emit(p, "Pod", "v1", "Created", "Created container: "+c.Name)
	}
	sleep(ctx, k.s.ContainerStart)
	if !k.s.HollowKubelets {
		k.ev.emit(p, "Pod", "v1", "Started", "Started container "+c.Name)
	}
	sleep(ctx, k.untilRelist(time.Now()))
	if ctx.Err() != nil {
		return
	}
	k.sm.set(p, stageRunning, ip)
}

// podWorkerBackOff is how long the pod worker waits before it syncs a pod
// again after a failed sync (backOffPeriod, pkg/kubelet/kubelet.go), with
// up to half of it more (workerBackOffPeriodJitterFactor, pkg/kubelet/
// pod_workers.go): a TokenRequest that failed (etcd's "leader changed"
// during an election) is sent again then, not given up. Giving up left
// pods never Ready: distance-sweep's hdd-kube at 50 ms, 7 of 500 pods, a
// run ended by its 10 minute timeout.
const podWorkerBackOff = 10 * time.Second

// podSyncBackoff is one wait before a failed pod sync is retried.
func podSyncBackoff() time.Duration {
	return podWorkerBackOff + time.Duration(rand.Float64()*0.5*float64(podWorkerBackOff))
}

// retrySync calls sync until it succeeds, waiting backoff() after each
// failure, as the pod worker requeues a pod whose sync failed; it returns
// nil, or ctx's error once ctx ends.
func retrySync(ctx context.Context, backoff func() time.Duration, sync func() error) error {
	for {
		err := sync()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		sleep(ctx, backoff())
	}
}

// untilRelist is the wait from now until the PLEG's next relist.
func (k *kubelet) untilRelist(now time.Time) time.Duration {
	since := now.Sub(k.relist) % plegRelistPeriod
	return plegRelistPeriod - since
}

// terminate stops a deleted pod's containers (at once) and hands the
// terminated status to the status manager, which writes it and then
// deletes the pod (grace period 0).
func (k *kubelet) terminate(_ context.Context, p *corev1.Pod) {
	if !k.s.HollowKubelets {
		k.ev.emit(p, "Pod", "v1", "Killing", "Stopping container "+p.Spec.Containers[0].Name)
	}
	k.sm.set(p, stageTerminated, "")
}
