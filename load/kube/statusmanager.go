package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// statusSyncPeriod is the status manager's periodic sync of every pod
// whose latest status was not written (syncPeriod, pkg/kubelet/status/
// status_manager.go).
const statusSyncPeriod = 10 * time.Second

// podStage is the status the kubelet's pod worker generated for a pod
// (generateAPIPodStatus at the start of each SyncPod, pkg/kubelet): each
// stage's status is whole, not a delta, so the latest one alone is what
// the status manager writes.
type podStage int

const (
	// stageCreating: the first SyncPod, before the sandbox and containers
	// exist: Pending, containers waiting in ContainerCreating.
	stageCreating podStage = iota + 1
	// stageRunning: the SyncPod after the PLEG's relist saw the container
	// running: Running with the pod IP, and Ready, since a container
	// without a readiness probe is ready once running (prober manager
	// UpdatePodStatus, pkg/kubelet/prober/prober_manager.go).
	stageRunning
	// stageTerminated: TerminatePod after the containers stopped.
	stageTerminated
)

// podStatusState is the status manager's versioned status of one pod
// (versionedPodStatus) and what it has written of it (apiStatusVersions).
type podStatusState struct {
	pod     *corev1.Pod // namespace, name and UID as the kubelet got it
	stage   podStage
	version int
	synced  int
	// What the pod's status keeps across versions (the start time,
	// updateStatusInternal; the container's ID and start), so that a
	// stage applied again gives the same status.
	ip, containerID string
	start, started  metav1.Time
}

// statusManager is the kubelet's status manager (pkg/kubelet/status/
// status_manager.go): SetPodStatus keeps the latest status per pod with a
// version, ignoring one equal to the cached status, and signals a channel
// of one slot; one goroutine (syncBatch) then syncs every pod whose latest
// version is not written yet, one after the other: a GET of the pod (a
// quorum read, resourceVersion ""), the status merged into it, and a PATCH
// of pods/status only when that changed the status (statusutil.
// PatchPodStatus skips an empty patch). Statuses set while the loop is busy
// or throttled by the kubelet's client coalesce: only the latest is
// written. A terminated pod is deleted after its status is written
// (canBeDeleted). Safe for concurrent use.
type statusManager struct {
	k  *kubelet
	ch chan struct{}

	mu       sync.Mutex
	statuses map[types.UID]*podStatusState
}

func newStatusManager(k *kubelet) *statusManager {
	return &statusManager{k: k, ch: make(chan struct{}, 1), statuses: map[types.UID]*podStatusState{}}
}

// set is SetPodStatus (updateStatusInternal): a new version of the pod's
// status unless it equals the cached one, then a non-blocking signal.
func (m *statusManager) set(p *corev1.Pod, stage podStage, ip string) {
	m.mu.Lock()
	st := m.statuses[p.UID]
	if st == nil {
		st = &podStatusState{pod: p, start: metav1.NewTime(time.Now())}
		m.statuses[p.UID] = st
	}
	if st.stage == stage {
		m.mu.Unlock()
		return // isPodStatusByKubeletEqual: "Ignoring same status for pod"
	}
	st.stage, st.version = stage, st.version+1
	if stage == stageRunning {
		st.ip, st.containerID, st.started = ip, "containerd://"+string(newUID()), metav1.NewTime(time.Now())
	}
	m.mu.Unlock()
	select {
	case m.ch <- struct{}{}:
	default: // there's already a status update pending
	}
}

// run is the status manager's goroutine (Start): syncBatch on each signal
// and every statusSyncPeriod.
func (m *statusManager) run(ctx context.Context) {
	t := time.NewTicker(statusSyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-m.ch:
		case <-t.C:
		}
		m.syncBatch(ctx)
	}
}

// syncBatch syncs every pod whose latest status version is newer than the
// one written, each with the status it has when its turn comes.
func (m *statusManager) syncBatch(ctx context.Context) {
	m.mu.Lock()
	var due []types.UID
	for uid, st := range m.statuses {
		if st.version > st.synced {
			due = append(due, uid)
		}
	}
	m.mu.Unlock()
	for _, uid := range due {
		if ctx.Err() != nil {
			return
		}
		m.syncPod(ctx, uid)
	}
}

// syncPod is the status manager's syncPod for the pod's latest status.
func (m *statusManager) syncPod(ctx context.Context, uid types.UID) {
	k := m.k
	m.mu.Lock()
	st, ok := m.statuses[uid]
	if !ok {
		m.mu.Unlock()
		return
	}
	snap := *st
	m.mu.Unlock()
	p := snap.pod
	cur, err := k.api.getObj(ctx, k.cl, resPods, p.Namespace, p.Name)
	if isNotFound(err) {
		m.drop(uid) // the pod is gone: RemoveOrphanedStatuses clears it
		return
	}
	if err != nil {
		return // retried by the next batch
	}
	if cur.GetUID() != uid {
		m.drop(uid) // deleted and recreated: skip
		return
	}
	merged := cur.DeepCopyObject().(*corev1.Pod)
	k.applyStage(merged, &snap)
	if !apiequality.Semantic.DeepEqual(cur.(*corev1.Pod).Status, merged.Status) {
		err := k.api.update(ctx, k.cl, "patch pods/status", resPods, p.Namespace, p.Name, func(o object) (object, error) {
			q := o.(*corev1.Pod)
			if q.UID != uid {
				return nil, errNotFound
			}
			k.applyStage(q, &snap)
			setManaged(q, managed("kubelet", "status", podStatusFields, time.Now()))
			return q, nil
		})
		if err != nil {
			return
		}
	}
	m.mu.Lock()
	if st.synced < snap.version {
		st.synced = snap.version
	}
	m.mu.Unlock()
	if snap.stage == stageTerminated {
		// canBeDeleted: the pod is finished, delete it with grace 0.
		if err := k.api.remove(ctx, k.cl, resPods, p.Namespace, p.Name); err == nil || isNotFound(err) {
			m.drop(uid)
		}
	}
}

func (m *statusManager) drop(uid types.UID) {
	m.mu.Lock()
	delete(m.statuses, uid)
	m.mu.Unlock()
}

// applyStage writes the whole status of st's stage into p, as
// generateAPIPodStatus makes it and mergePodStatus merges it.
func (k *kubelet) applyStage(p *corev1.Pod, st *podStatusState) {
	c := p.Spec.Containers[0]
	nodeIP := nodeIP(k.i)
	start := st.start
	p.Status.HostIP, p.Status.HostIPs, p.Status.StartTime = nodeIP, []corev1.HostIP{{IP: nodeIP}}, &start
	setPodCondition(p, corev1.PodInitialized, corev1.ConditionTrue, "")
	switch st.stage {
	case stageCreating:
		setPodCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionFalse, "")
		// The hollow kubelet's prober (pkg/kubelet/prober/testing
		// FakeManager.UpdatePodStatus) marks every container ready, even
		// one still waiting, so its pods are Ready while Pending.
		ready := k.s.HollowKubelets
		cond, reason := corev1.ConditionFalse, "ContainersNotReady"
		if ready {
			cond, reason = corev1.ConditionTrue, ""
		}
		setPodCondition(p, corev1.PodReady, cond, reason)
		setPodCondition(p, corev1.ContainersReady, cond, reason)
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, Ready: ready,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
	case stageRunning:
		started := true
		p.Status.Phase, p.Status.PodIP, p.Status.PodIPs = corev1.PodRunning, st.ip, []corev1.PodIP{{IP: st.ip}}
		setPodCondition(p, corev1.PodReadyToStartContainers, corev1.ConditionTrue, "")
		setPodCondition(p, corev1.PodReady, corev1.ConditionTrue, "")
		setPodCondition(p, corev1.ContainersReady, corev1.ConditionTrue, "")
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:0f2b5c1e",
			ContainerID: st.containerID, Started: &started, Ready: true,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: st.started}}}}
	case stageTerminated:
		setPodCondition(p, corev1.PodReady, corev1.ConditionFalse, "PodCompleted")
		setPodCondition(p, corev1.ContainersReady, corev1.ConditionFalse, "PodCompleted")
		for i := range p.Status.ContainerStatuses {
			s := &p.Status.ContainerStatuses[i]
			s.Ready = false
			if s.State.Terminated == nil {
				s.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
					FinishedAt: metav1.NewTime(time.Now())}}
			}
		}
	default:
		panic(fmt.Sprintf("kube: pod stage %d", st.stage))
	}
}

// podStatusFields are the kubelet's managed fields of pods/status.
const podStatusFields = `{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`
