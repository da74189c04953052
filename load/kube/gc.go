package kube

import (
	"context"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// garbageCollector is kube-controller-manager's garbage collector for the
// workload's owner chains, with background propagation (kubectl delete's
// default): when a Deployment goes it deletes its ReplicaSets, when a
// ReplicaSet goes its pods (gracefully: the apiserver sets
// deletionTimestamp, the kubelet removes the pod), when a Service goes its
// EndpointSlices; a dependent whose owner is already gone is deleted too.
// Safe for concurrent use.
type garbageCollector struct {
	api *apiserver
	cl  *client
	q   *queue
}

func newGarbageCollector(api *apiserver, cl *client) *garbageCollector {
	g := &garbageCollector{api: api, cl: cl, q: newQueue()}
	owners := func(dependents res) func(watchEvent) {
		return func(e watchEvent) {
			if e.kind == evDeleted {
				g.q.add(dependents.name() + "/" + string(e.old.obj.GetUID()))
			}
		}
	}
	api.cache(resDeployments).handle(owners(resReplicaSets))
	api.cache(resReplicaSets).handle(owners(resPods))
	api.cache(resServices).handle(owners(resSlices))
	// A dependent created after its owner went is deleted on sight.
	orphan := func(dependents, owner res) func(watchEvent) {
		return func(e watchEvent) {
			if e.kind != evAdded {
				return
			}
			for _, r := range e.cur.obj.GetOwnerReferences() {
				if _, ok := api.cache(owner).getNS(e.cur.obj.GetNamespace(), r.Name); !ok {
					g.q.add(dependents.name() + "/" + string(r.UID))
				}
			}
		}
	}
	api.cache(resReplicaSets).handle(orphan(resReplicaSets, resDeployments))
	api.cache(resPods).handle(orphan(resPods, resReplicaSets))
	return g
}

func (g *garbageCollector) start(ctx context.Context, wg *sync.WaitGroup, workers int) {
	runWorkers(ctx, wg, workers, g.q, g.sync)
}

func (g *garbageCollector) sync(ctx context.Context, key string) error {
	kind, uid, _ := strings.Cut(key, "/")
	var r res
	switch kind {
	case resReplicaSets.name():
		r = resReplicaSets
	case resPods.name():
		r = resPods
	default:
		r = resSlices
	}
	for _, e := range g.api.cache(r).byIndex("owner", uid) {
		o := e.obj
		var err error
		if r == resPods {
			err = g.deletePod(ctx, o.(*corev1.Pod))
		} else {
			err = g.api.remove(ctx, g.cl, r, o.GetNamespace(), o.GetName())
		}
		if err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}

// deletePod is a graceful DELETE: kube-apiserver's GuaranteedUpdate
// setting deletionTimestamp and the grace period (30 s by default).
func (g *garbageCollector) deletePod(ctx context.Context, p *corev1.Pod) error {
	if p.DeletionTimestamp != nil {
		return nil
	}
	err := g.api.update(ctx, g.cl, "delete pods", resPods, p.Namespace, p.Name, func(cur object) (object, error) {
		p := cur.(*corev1.Pod)
		if p.DeletionTimestamp != nil {
			return nil, errNoChange
		}
		grace := int64(30)
		if p.Spec.TerminationGracePeriodSeconds != nil {
			grace = *p.Spec.TerminationGracePeriodSeconds
		}
		t := metav1.NewTime(time.Now().Add(time.Duration(grace) * time.Second))
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &t, &grace
		return p, nil
	})
	return err
}
