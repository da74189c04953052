package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// expectationsTimeout is how long the replicaset controller waits for the
// creates it expects before syncing anyway (ExpectationsTimeout, 5 min,
// pkg/controller/controller_utils.go).
const expectationsTimeout = 5 * time.Minute

// replicaSetController is kube-controller-manager's replicaset
// controller: it creates the pods a ReplicaSet lacks in slow-start
// batches (1, 2, 4, ... at most BurstReplicas a sync), waits until its
// watch cache has seen every create it expects before the next, and
// writes the ReplicaSet's status. Safe for concurrent use.
type replicaSetController struct {
	api                 *apiserver
	cl                  *client
	ev                  *eventRecorder
	q                   *queue
	initialBatch, burst int

	mu  sync.Mutex
	exp map[string]*expectation // by ReplicaSet key
}

type expectation struct {
	adds int
	at   time.Time
}

func newReplicaSetController(api *apiserver, cl *client, ev *eventRecorder, initialBatch, burst int) *replicaSetController {
	c := &replicaSetController{api: api, cl: cl, ev: ev, q: newQueue(), initialBatch: initialBatch, burst: burst, exp: map[string]*expectation{}}
	api.cache(resReplicaSets).handle(func(e watchEvent) {
		if e.kind != evDeleted {
			c.q.add(nsName(e.cur.obj))
		}
	})
	api.cache(resPods).handle(func(e watchEvent) {
		o := e.cur.obj
		if o == nil {
			o = e.old.obj
		}
		for _, r := range o.GetOwnerReferences() {
			if r.Kind != "ReplicaSet" {
				continue
			}
			key := o.GetNamespace() + "/" + r.Name
			if e.kind == evAdded {
				c.observed(key, 1)
			}
			c.q.add(key)
		}
	})
	return c
}

func (c *replicaSetController) start(ctx context.Context, wg *sync.WaitGroup, workers int) {
	runWorkers(ctx, wg, workers, c.q, c.sync)
}

func (c *replicaSetController) observed(key string, n int) {
	c.mu.Lock()
	if e := c.exp[key]; e != nil {
		e.adds -= n
	}
	c.mu.Unlock()
}

func (c *replicaSetController) satisfied(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.exp[key]
	return e == nil || e.adds <= 0 || time.Since(e.at) > expectationsTimeout
}

func (c *replicaSetController) expect(key string, n int) {
	c.mu.Lock()
	c.exp[key] = &expectation{adds: n, at: time.Now()}
	c.mu.Unlock()
}

func (c *replicaSetController) sync(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	e, ok := c.api.cache(resReplicaSets).getNS(ns, name)
	if !ok {
		c.mu.Lock()
		delete(c.exp, key)
		c.mu.Unlock()
		return nil
	}
	rs := e.obj.(*appsv1.ReplicaSet)
	var active []*corev1.Pod
	for _, p := range c.api.cache(resPods).byIndex("owner", string(rs.UID)) {
		pod := p.obj.(*corev1.Pod)
		if pod.DeletionTimestamp == nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
			active = append(active, pod)
		}
	}
	var manageErr error
	if rs.DeletionTimestamp == nil && c.satisfied(key) {
		if diff := int(*rs.Spec.Replicas) - len(active); diff > 0 {
			diff = min(diff, c.burst)
			c.expect(key, diff)
			created, err := slowStart(diff, c.initialBatch, func() error {
				p, err := c.api.create(ctx, c.cl, resPods, newPod(rs, time.Now()))
				if err == nil {
					c.ev.emit(rs, "ReplicaSet", "apps/v1", "SuccessfulCreate", "Created pod: "+p.obj.GetName())
				}
				return err
			})
			if skipped := diff - created; skipped > 0 {
				c.observed(key, skipped)
			}
			manageErr = err
		}
	}
	want := rsStatus(rs, active)
	if rsStatusEqual(want, rs.Status) {
		return manageErr
	}
	err := c.api.update(ctx, c.cl, "update replicasets/status", resReplicaSets, ns, name, func(cur object) (object, error) {
		rs := cur.(*appsv1.ReplicaSet)
		if rsStatusEqual(want, rs.Status) {
			return nil, errNoChange
		}
		rs.Status = want
		return rs, nil
	})
	if manageErr != nil {
		return manageErr
	}
	return err
}

// rsStatus counts the active pods (no minReadySeconds: ready is available).
func rsStatus(rs *appsv1.ReplicaSet, active []*corev1.Pod) appsv1.ReplicaSetStatus {
	s := appsv1.ReplicaSetStatus{Replicas: int32(len(active)), FullyLabeledReplicas: int32(len(active)), ObservedGeneration: rs.Generation}
	for _, p := range active {
		if podReady(p) {
			s.ReadyReplicas++
			s.AvailableReplicas++
		}
	}
	s.Conditions = rs.Status.Conditions
	s.TerminatingReplicas = rs.Status.TerminatingReplicas
	return s
}

func rsStatusEqual(a, b appsv1.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas && a.FullyLabeledReplicas == b.FullyLabeledReplicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas && a.ObservedGeneration == b.ObservedGeneration
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// slowStart calls fn count times in batches of initial, doubling, each
// batch in parallel, stopping after a batch with an error, as the
// controller's slowStartBatch does. It returns how many succeeded.
func slowStart(count, initial int, fn func() error) (int, error) {
	done := 0
	for batch := min(count, initial); batch > 0; batch = min(2*batch, count-done) {
		errs := make(chan error, batch)
		var wg sync.WaitGroup
		for range batch {
			wg.Go(func() { errs <- fn() })
		}
		wg.Wait()
		close(errs)
		var first error
		for err := range errs {
			if err == nil {
				done++
			} else if first == nil {
				first = err
			}
		}
		if first != nil {
			return done, fmt.Errorf("kube: replicaset slow start: %w", first)
		}
	}
	return done, nil
}
