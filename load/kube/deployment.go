package kube

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deploymentController is kube-controller-manager's deployment controller
// for the manifest's case (a new Deployment, no rollout of a new
// template): it creates the Deployment's ReplicaSet and keeps the
// Deployment's status in step with it. Driven by the deployment and
// replicaset watch caches; Workers syncs at a time.
type deploymentController struct {
	api *apiserver
	cl  *client
	ev  *eventRecorder
	q   *queue
}

func newDeploymentController(api *apiserver, cl *client, ev *eventRecorder) *deploymentController {
	c := &deploymentController{api: api, cl: cl, ev: ev, q: newQueue()}
	api.cache(resDeployments).handle(func(e watchEvent) {
		if e.kind != evDeleted {
			c.q.add(nsName(e.cur.obj))
		}
	})
	api.cache(resReplicaSets).handle(func(e watchEvent) {
		o := e.cur.obj
		if o == nil {
			o = e.old.obj
		}
		for _, r := range o.GetOwnerReferences() {
			if r.Kind == "Deployment" {
				c.q.add(o.GetNamespace() + "/" + r.Name)
			}
		}
	})
	return c
}

func (c *deploymentController) start(ctx context.Context, wg *sync.WaitGroup, workers int) {
	runWorkers(ctx, wg, workers, c.q, c.sync)
}

func nsName(o object) string { return o.GetNamespace() + "/" + o.GetName() }

func splitKey(k string) (ns, name string) {
	ns, name, _ = strings.Cut(k, "/")
	return ns, name
}

func (c *deploymentController) sync(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	e, ok := c.api.cache(resDeployments).getNS(ns, name)
	if !ok {
		return nil
	}
	d := e.obj.(*appsv1.Deployment)
	if d.DeletionTimestamp != nil {
		return nil
	}
	owned := c.api.cache(resReplicaSets).byIndex("owner", string(d.UID))
	var rs *appsv1.ReplicaSet
	if len(owned) > 0 {
		rs = owned[0].obj.(*appsv1.ReplicaSet)
	} else {
		created, err := c.api.create(ctx, c.cl, resReplicaSets, newReplicaSet(d, time.Now()))
		if err != nil {
			return err
		}
		rs = created.obj.(*appsv1.ReplicaSet)
		c.ev.emit(d, "Deployment", "apps/v1", "ScalingReplicaSet",
			fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs.Name, *rs.Spec.Replicas))
	}
	want := deploymentStatus(d, rs)
	if statusEqual(d.Status, want) {
		return nil
	}
	err := c.api.update(ctx, c.cl, "update deployments/status", resDeployments, ns, name, func(cur object) (object, error) {
		d := cur.(*appsv1.Deployment)
		want := deploymentStatus(d, rs)
		if statusEqual(d.Status, want) {
			return nil, errNoChange
		}
		d.Status = want
		return d, nil
	})
	return err
}

// deploymentStatus is the status the controller computes from its one
// ReplicaSet: counts, and the Available and Progressing conditions
// (maxUnavailable 25%, rounded down).
func deploymentStatus(d *appsv1.Deployment, rs *appsv1.ReplicaSet) appsv1.DeploymentStatus {
	want := *d.Spec.Replicas
	s := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: rs.Status.Replicas, UpdatedReplicas: rs.Status.Replicas,
		ReadyReplicas: rs.Status.ReadyReplicas, AvailableReplicas: rs.Status.AvailableReplicas,
		UnavailableReplicas: max(0, want-rs.Status.AvailableReplicas)}
	now := metav1.NewTime(time.Now())
	avail := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse,
		Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."}
	if s.AvailableReplicas >= want-want/4 {
		avail.Status, avail.Reason, avail.Message = corev1.ConditionTrue, "MinimumReplicasAvailable", "Deployment has minimum availability."
	}
	prog := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue,
		Reason: "ReplicaSetUpdated", Message: fmt.Sprintf("ReplicaSet %q is progressing.", rs.Name)}
	if s.AvailableReplicas == want && s.UpdatedReplicas == want {
		prog.Reason, prog.Message = "NewReplicaSetAvailable", fmt.Sprintf("ReplicaSet %q has successfully progressed.", rs.Name)
	}
	for _, c := range []*appsv1.DeploymentCondition{&avail, &prog} {
		c.LastUpdateTime, c.LastTransitionTime = now, now
		for _, old := range d.Status.Conditions {
			if old.Type == c.Type && old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
				if old.Reason == c.Reason {
					c.LastUpdateTime = old.LastUpdateTime
				}
			}
		}
	}
	s.Conditions = []appsv1.DeploymentCondition{avail, prog}
	return s
}

// statusEqual compares the status fields the controller sets, ignoring
// condition timestamps.
func statusEqual(a, b appsv1.DeploymentStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Replicas != b.Replicas || a.UpdatedReplicas != b.UpdatedReplicas ||
		a.ReadyReplicas != b.ReadyReplicas || a.AvailableReplicas != b.AvailableReplicas ||
		a.UnavailableReplicas != b.UnavailableReplicas || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		if a.Conditions[i].Type != b.Conditions[i].Type || a.Conditions[i].Status != b.Conditions[i].Status ||
			a.Conditions[i].Reason != b.Conditions[i].Reason {
			return false
		}
	}
	return true
}
