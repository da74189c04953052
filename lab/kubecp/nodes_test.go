package kubecp

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	corev1 "k8s.io/api/core/v1"
)

// kubemark returns the pinned kubemark from the build cache, or skips.
func kubemark(t *testing.T) string {
	t.Helper()
	v, _ := kubebuild.ParseVersion(kubebuild.Pinned)
	paths, ok := kubebuild.Builder{}.Cached(v, kubebuild.Kubemark)
	if !ok {
		t.Skipf("kubemark %s is not in the build cache", kubebuild.Pinned)
	}
	return paths[kubebuild.Kubemark]
}

// TestHollowNodesRunPods: three stacked apiservers (one member each) and
// two hollow nodes; the nodes become Ready without the not-ready taint, a
// Deployment's pods are scheduled onto them and become Ready (the fake
// runtime starts containers at once), and Stop leaves no fake runtime
// socket and no run directory.
func TestHollowNodesRunPods(t *testing.T) {
	bins := binaries(t)
	km := kubemark(t)
	c := clustertest.Start(t, cluster.Options{Members: 3, BaseDir: clustertest.Tmpfs(t)})
	ctx := context.Background()
	before, _ := filepath.Glob(runtimeSockets)
	cp, err := Start(ctx, Options{Binaries: bins, Etcd: c.Client(), Dir: t.TempDir(), APIServers: 3})
	if err != nil {
		var se *StartError
		if errors.As(err, &se) {
			t.Log(se.Detail())
		}
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			logTails(t, cp)
			_ = cp.Stop()
		}
	})
	if n := len(cp.URLs()); n != 3 {
		t.Fatalf("%d apiservers", n)
	}
	began := time.Now()
	names, err := cp.StartNodes(ctx, NodeOptions{Kubemark: km, Count: 2, MaxPods: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v Ready in %.1f s", names, time.Since(began).Seconds())
	if err := cp.Apply(ctx, []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 4
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.k8s.io/pause:3.10
`), "default"); err != nil {
		t.Fatal(err)
	}
	applied := time.Now()
	var pods corev1.PodList
	clustertest.WaitFor(t, 90*time.Second, "4 pods Ready", func() bool {
		pods = corev1.PodList{}
		if cp.Get(ctx, "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb", &pods) != nil {
			return false
		}
		ready := 0
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		return ready == 4
	})
	t.Logf("4 pods Ready %.1f s after the apply", time.Since(applied).Seconds())
	on := map[string]int{}
	for _, p := range pods.Items {
		on[p.Spec.NodeName]++
	}
	for n := range on {
		if n != names[0] && n != names[1] {
			t.Errorf("a pod on %q, not a hollow node", n)
		}
	}
	stopped = true
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(runtimeSockets)
	if len(after) > len(before) {
		t.Errorf("fake runtime sockets left: %v (before: %v)", after, before)
	}
}
