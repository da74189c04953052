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
// status when it changed or NodeStatusReport passed, and takes the pods
// bound to it through their phases (Pending with containers creating,
// Running, Ready) as status updates, each a GET and a PATCH of
// pods/status as the kubelet's status manager sends them; deleted pods it
// terminates and removes. Its events go through their own client
// (eventRecordQPS). Safe for concurrent use.
type kubelet struct {
	i    int
	name string
	api  *apiserver
	cl   *client
	ev   *eventRecorder
	s    *Spec

	mu          sync.Mutex
	started     map[string]bool
	terminating map[string]bool
	nPods       int
	lease       entry
	nodeUID     string
	lastReport  time.Time
}

func newKubelet(i int, api *apiserver, cl, evcl *client, s *Spec) *kubelet {
	name := fmt.Sprintf("node-%04d", i)
	return &kubelet{i: i, name: name, api: api, cl: cl, ev: newEventRecorder(api, evcl, "kubelet", name), s: s,
		started: map[string]bool{}, terminating: map[string]bool{}}
}

// register creates the Node and its Lease and writes the first status.
func (k *kubelet) register(ctx context.Context) error {
	now := time.Now()
	node, err := k.api.create(ctx, k.cl, resNodes, newNode(k.name, k.i, k.s.PodsPerNode, now))
	if err != nil && !isAlreadyExists(err) {
		return err
	}
	uid := ""
	if node.obj != nil {
		uid = string(node.obj.GetUID())
	}
	lease, err := k.api.create(ctx, k.cl, resLeases, newLease(k.name, types.UID(uid), k.s.Limits.NodeLeaseDuration, now))
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
	if err := k.cl.wait(ctx); err != nil {
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
	err := k.api.update(ctx, k.cl, "patch nodes/status", resNodes, "", k.name, func(cur object) (object, error) {
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

// startPod takes a pod from bound to Ready: ContainerCreating, then the
// image pull and container start the spec models (not etcd's), Running,
// Ready (no readiness probe).
func (k *kubelet) startPod(ctx context.Context, p *corev1.Pod, ip string) {
	c := p.Spec.Containers[0]
	nodeIP := nodeIP(k.i)
	if k.podStatus(ctx, p, func(p *corev1.Pod) {
		now := metav1.NewTime(time.Now())
		p.Status.HostIP, p.Status.HostIPs, p.Status.StartTime = nodeIP, []corev1.HostIP{{IP: nodeIP}}, &now
		setPodCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionFalse, "")
		setPodCondition(p, corev1.PodInitialized, corev1.ConditionTrue, "")
		setPodCondition(p, corev1.PodReady, corev1.ConditionFalse, "ContainersNotReady")
		setPodCondition(p, corev1.ContainersReady, corev1.ConditionFalse, "ContainersNotReady")
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
	}) != nil {
		return
	}
	sleep(ctx, k.s.ImagePull)
	msg := fmt.Sprintf("Container image %q already present on machine", c.Image)
	if k.s.ImagePull > 0 {
		msg = fmt.Sprintf("Successfully pulled image %q in %s", c.Image, k.s.ImagePull)
	}
	k.ev.emit(p, "Pod", "v1", "Pulled", msg)
	k.ev.emit(p, "Pod", "v1", "Created", "Created container: "+c.Name)
	sleep(ctx, k.s.ContainerStart)
	k.ev.emit(p, "Pod", "v1", "Started", "Started container "+c.Name)
	if ctx.Err() != nil {
		return
	}
	started := true
	if k.podStatus(ctx, p, func(p *corev1.Pod) {
		now := metav1.NewTime(time.Now())
		p.Status.Phase, p.Status.PodIP, p.Status.PodIPs = corev1.PodRunning, ip, []corev1.PodIP{{IP: ip}}
		setPodCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionTrue, "")
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:0f2b5c1e",
			ContainerID: "containerd://" + string(newUID()), Started: &started,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}
	}) != nil {
		return
	}
	_ = k.podStatus(ctx, p, func(p *corev1.Pod) {
		setPodCondition(p, corev1.PodReady, corev1.ConditionTrue, "")
		setPodCondition(p, corev1.ContainersReady, corev1.ConditionTrue, "")
		if len(p.Status.ContainerStatuses) > 0 {
			p.Status.ContainerStatuses[0].Ready = true
		}
	})
}

// terminate stops a deleted pod's containers (at once), reports it and
// removes it (the kubelet's final delete with grace period 0).
func (k *kubelet) terminate(ctx context.Context, p *corev1.Pod) {
	k.ev.emit(p, "Pod", "v1", "Killing", "Stopping container "+p.Spec.Containers[0].Name)
	if k.podStatus(ctx, p, func(p *corev1.Pod) {
		setPodCondition(p, corev1.PodReady, corev1.ConditionFalse, "PodCompleted")
		setPodCondition(p, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted")
		for i := range p.Status.ContainerStatuses {
			s := &p.Status.ContainerStatuses[i]
			s.Ready = false
			s.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
				FinishedAt: metav1.NewTime(time.Now())}}
		}
	}) != nil {
		return
	}
	_ = k.api.remove(ctx, k.cl, resPods, p.Namespace, p.Name)
}

// podStatus is one status manager sync: a GET of the pod, then a PATCH of
// pods/status applying fn (skipped for a pod that is gone or replaced).
func (k *kubelet) podStatus(ctx context.Context, pod *corev1.Pod, fn func(*corev1.Pod)) error {
	if err := k.api.get(ctx, k.cl, resPods, pod.Namespace, pod.Name); err != nil {
		return err
	}
	err := k.api.update(ctx, k.cl, "patch pods/status", resPods, pod.Namespace, pod.Name, func(cur object) (object, error) {
		p := cur.(*corev1.Pod)
		if p.UID != pod.UID {
			return nil, errNotFound
		}
		fn(p)
		setManaged(p, managed("kubelet", "status", `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`, time.Now()))
		return p, nil
	})
	return err
}
