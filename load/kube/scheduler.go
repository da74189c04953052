package kube

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Scheduler backoff of an unschedulable pod (podInitialBackoffSeconds 1,
// podMaxBackoffSeconds 10, pkg/scheduler/apis/config/v1/defaults.go).
const (
	schedBackoff    = time.Second
	schedMaxBackoff = 10 * time.Second
)

var errAssigned = errors.New("kube: pod is already assigned to a node")

// scheduler is kube-scheduler: one goroutine takes pending pods one at a
// time, picks the node with room (nodes in turn; every node fits every
// pod here, so only max-pods limits), assumes the pod there and binds it
// asynchronously: a pods/binding create, which kube-apiserver turns into a
// GuaranteedUpdate of the pod setting spec.nodeName and the PodScheduled
// condition. Safe for concurrent use.
type scheduler struct {
	api     *apiserver
	cl      *client
	ev      *eventRecorder
	maxPods int

	mu       sync.Mutex
	cond     *sync.Cond
	pending  []string
	queued   map[string]bool
	assigned map[string]string // pod key → node, assumed or bound
	perNode  map[string]int
	next     int
	names    []string // node names, sorted; rebuilt when the count changes
	down     bool
}

func newScheduler(api *apiserver, cl *client, ev *eventRecorder, maxPods int) *scheduler {
	s := &scheduler{api: api, cl: cl, ev: ev, maxPods: maxPods, queued: map[string]bool{}, assigned: map[string]string{}, perNode: map[string]int{}}
	s.cond = sync.NewCond(&s.mu)
	api.cache(resPods).handle(s.onPod)
	return s
}

func (s *scheduler) onPod(e watchEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.kind == evDeleted {
		s.unassign(e.key)
		return
	}
	p := e.cur.obj.(*corev1.Pod)
	switch {
	case p.Spec.NodeName != "":
		if _, ok := s.assigned[e.key]; !ok {
			s.assigned[e.key] = p.Spec.NodeName
			s.perNode[p.Spec.NodeName]++
		}
	case p.DeletionTimestamp == nil && !s.queued[e.key]:
		if _, ok := s.assigned[e.key]; !ok {
			s.queued[e.key] = true
			s.pending = append(s.pending, e.key)
			s.cond.Signal()
		}
	}
}

// unassign forgets a pod's node; mu held.
func (s *scheduler) unassign(key string) {
	if n, ok := s.assigned[key]; ok {
		s.perNode[n]--
		delete(s.assigned, key)
	}
}

func (s *scheduler) start(ctx context.Context, wg *sync.WaitGroup) {
	wg.Go(func() {
		<-ctx.Done()
		s.mu.Lock()
		s.down = true
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	wg.Go(func() { s.loop(ctx, wg) })
}

func (s *scheduler) loop(ctx context.Context, wg *sync.WaitGroup) {
	for {
		s.mu.Lock()
		for len(s.pending) == 0 && !s.down {
			s.cond.Wait()
		}
		if s.down {
			s.mu.Unlock()
			return
		}
		key := s.pending[0]
		s.pending = s.pending[1:]
		delete(s.queued, key)
		s.mu.Unlock()
		s.scheduleOne(ctx, wg, key, 0)
	}
}

func (s *scheduler) scheduleOne(ctx context.Context, wg *sync.WaitGroup, key string, attempt int) {
	e, ok := s.api.cache(resPods).get(key)
	if !ok {
		return
	}
	pod := e.obj.(*corev1.Pod)
	if pod.Spec.NodeName != "" || pod.DeletionTimestamp != nil {
		return
	}
	s.mu.Lock()
	if _, ok := s.assigned[key]; ok {
		s.mu.Unlock()
		return
	}
	node := s.pick()
	if node == "" {
		s.mu.Unlock()
		s.retry(ctx, wg, key, attempt)
		return
	}
	s.assigned[key] = node
	s.perNode[node]++
	s.mu.Unlock()
	wg.Go(func() {
		if err := s.bind(ctx, pod, node); err != nil && ctx.Err() == nil {
			s.mu.Lock()
			if s.assigned[key] == node {
				s.unassign(key)
			}
			s.mu.Unlock()
			if !errors.Is(err, errAssigned) && !errors.Is(err, errNotFound) {
				s.retry(ctx, wg, key, attempt)
			}
		}
	})
}

// pick returns the next node in turn with room; mu held.
func (s *scheduler) pick() string {
	if nodes := s.api.cache(resNodes); nodes.len() != len(s.names) {
		s.names = s.names[:0]
		for _, n := range nodes.all() {
			s.names = append(s.names, n.obj.GetName())
		}
		sort.Strings(s.names)
	}
	names := s.names
	if len(names) == 0 {
		return ""
	}
	for i := range names {
		n := names[(s.next+i)%len(names)]
		if s.perNode[n] < s.maxPods {
			s.next = (s.next + i + 1) % len(names)
			return n
		}
	}
	return ""
}

// retry puts the pod back after the scheduler's backoff.
func (s *scheduler) retry(ctx context.Context, wg *sync.WaitGroup, key string, attempt int) {
	d := min(schedBackoff<<min(attempt, 8), schedMaxBackoff)
	wg.Go(func() {
		sleep(ctx, d)
		if ctx.Err() == nil {
			s.scheduleOne(ctx, wg, key, attempt+1)
		}
	})
}

func (s *scheduler) bind(ctx context.Context, pod *corev1.Pod, node string) error {
	err := s.api.update(ctx, s.cl, "create pods/binding", resPods, pod.Namespace, pod.Name, func(cur object) (object, error) {
		p := cur.(*corev1.Pod)
		if p.Spec.NodeName != "" {
			return nil, fmt.Errorf("%w: %s", errAssigned, p.Spec.NodeName)
		}
		if p.UID != pod.UID {
			return nil, errNotFound
		}
		p.Spec.NodeName = node
		setPodCondition(p, corev1.PodScheduled, corev1.ConditionTrue, "")
		return p, nil
	})
	if err == nil {
		s.ev.emit(pod, "Pod", "v1", "Scheduled", fmt.Sprintf("Successfully assigned %s/%s to %s", pod.Namespace, pod.Name, node))
	}
	return err
}

// setPodCondition sets a condition, keeping its transition time when the
// status does not change.
func setPodCondition(p *corev1.Pod, t corev1.PodConditionType, st corev1.ConditionStatus, reason string) {
	now := metav1.NewTime(time.Now())
	for i := range p.Status.Conditions {
		c := &p.Status.Conditions[i]
		if c.Type == t {
			if c.Status != st {
				c.LastTransitionTime = now
			}
			c.Status, c.Reason = st, reason
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: st, Reason: reason, LastTransitionTime: now})
}
