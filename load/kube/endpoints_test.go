package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodEndpointsChanged: only a pod change that may change endpoints
// queues its services (k8s.io/endpointslice util podEndpointsChanged).
func TestPodEndpointsChanged(t *testing.T) {
	base := func() *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"app": "a"}}}
		p.Spec.NodeName = "node-0000"
		return p
	}
	now := metav1.NewTime(time.Now())
	for _, c := range []struct {
		name   string
		change func(p *corev1.Pod)
		want   bool
	}{
		{"nothing", func(*corev1.Pod) {}, false},
		{"binding", func(p *corev1.Pod) { p.Spec.NodeName = "node-0001" }, false},
		{"status without IP or readiness", func(p *corev1.Pod) {
			p.Status.HostIP = "172.16.0.1"
			setPodCondition(p, corev1.PodInitialized, corev1.ConditionTrue, "")
		}, false},
		{"ready", func(p *corev1.Pod) { setPodCondition(p, corev1.PodReady, corev1.ConditionTrue, "") }, true},
		{"IP", func(p *corev1.Pod) { p.Status.PodIPs = []corev1.PodIP{{IP: "10.64.0.2"}} }, true},
		{"labels", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "b"} }, true},
		{"deletion", func(p *corev1.Pod) { p.DeletionTimestamp = &now }, true},
	} {
		old, cur := base(), base()
		c.change(cur)
		if got := podEndpointsChanged(old, cur); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestQueueMergesWaitingKeys: a key added while it waits is queued once; a
// key added while it is processed is processed once more after.
func TestQueueMergesWaitingKeys(t *testing.T) {
	q := newQueue()
	for range 3 {
		q.add("svc")
	}
	q.add("other")
	k, _ := q.get()
	if k != "svc" || len(q.items) != 1 {
		t.Fatalf("got %q, %d items left, want svc and 1", k, len(q.items))
	}
	q.add("svc")
	q.add("svc")
	if len(q.items) != 1 {
		t.Fatalf("a key being processed was queued again before done: %v", q.items)
	}
	q.done("svc")
	if len(q.items) != 2 || q.items[1] != "svc" {
		t.Fatalf("after done: %v, want [other svc]", q.items)
	}
}
