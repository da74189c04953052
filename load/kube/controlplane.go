package kube

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/etcdlab/etcdlab/result"
	corev1 "k8s.io/api/core/v1"
)

// component is one emulated control-plane component as the result
// reports it: its settings, source and clients (many for kubelets).
type component struct {
	name    string
	limits  ClientLimits
	workers int
	source  string
	clients []*client
}

// controlPlane is the emulated cluster: apiservers, the components on
// them, and the tracker. Built and started by Run; its goroutines stop
// when the context passed to start ends and wg is waited on.
type controlPlane struct {
	s        Spec
	apis     []*apiserver
	comps    []*component
	events   []*eventRecorder
	kubelets []*kubelet
	byNode   map[string]*kubelet
	tr       *tracker
	user     *client
	gc       *garbageCollector
	leases   []*leaseHolder
	starters []func(context.Context, *sync.WaitGroup)
}

func newControlPlane(s Spec, st *store, granted *grantedLeases) *controlPlane {
	cp := &controlPlane{s: s, byNode: map[string]*kubelet{}}
	for i := range s.APIServers {
		cp.apis = append(cp.apis, newAPIServer(i, st, s.Limits, granted))
	}
	l := s.Limits
	cp.user = newClient("kubectl", ClientLimits{QPS: math.Inf(1), Burst: 1})
	cp.comps = append(cp.comps, &component{name: "kubectl", source: srcUser, clients: []*client{cp.user}})
	// Controllers, each with its own client of kube-controller-manager's
	// limits; kube-controller-manager talks to one apiserver.
	cm := func(name string, workers int, src string) (*apiserver, *client, *eventRecorder) {
		cl := newClient(name, l.ControllerManager)
		cp.comps = append(cp.comps, &component{name: name, limits: l.ControllerManager, workers: workers, source: src, clients: []*client{cl}})
		a := cp.api(0)
		ev := newEventRecorder(a, cl, name, "")
		cp.events = append(cp.events, ev)
		return a, cl, ev
	}
	a, cl, ev := cm("deployment-controller", l.DeploymentWorkers, srcControllerManager+"; "+srcDeployment)
	dc := newDeploymentController(a, cl, ev)
	a, cl, ev = cm("replicaset-controller", l.ReplicaSetWorkers, srcControllerManager+"; "+srcReplicaSet)
	rc := newReplicaSetController(a, cl, ev, l.SlowStartInitialBatch, l.BurstReplicas)
	a, cl, _ = cm("endpoint-controller", l.EndpointWorkers, srcControllerManager+"; "+srcEndpoints)
	ec := newEndpointsController(a, cl, false, l.EndpointsPerSlice)
	a, cl, _ = cm("endpointslice-controller", l.EndpointSliceWorkers, srcControllerManager+"; "+srcEndpointSlice)
	sc := newEndpointsController(a, cl, true, l.EndpointsPerSlice)
	// The garbage collector has 20 workers (--concurrent-gc-syncs).
	a, cl, _ = cm("generic-garbage-collector", 20, srcControllerManager+"; "+srcGC+", --concurrent-gc-syncs 20")
	cp.gc = newGarbageCollector(a, cl)
	cp.starters = append(cp.starters,
		func(ctx context.Context, wg *sync.WaitGroup) { dc.start(ctx, wg, l.DeploymentWorkers) },
		func(ctx context.Context, wg *sync.WaitGroup) { rc.start(ctx, wg, l.ReplicaSetWorkers) },
		func(ctx context.Context, wg *sync.WaitGroup) { ec.start(ctx, wg, l.EndpointWorkers) },
		func(ctx context.Context, wg *sync.WaitGroup) { sc.start(ctx, wg, l.EndpointSliceWorkers) },
		func(ctx context.Context, wg *sync.WaitGroup) { cp.gc.start(ctx, wg, 20) })

	schedCl := newClient("kube-scheduler", l.Scheduler)
	cp.comps = append(cp.comps, &component{name: "kube-scheduler", limits: l.Scheduler, source: srcScheduler, clients: []*client{schedCl}})
	schedAPI := cp.api(1)
	schedEv := newEventRecorder(schedAPI, schedCl, "default-scheduler", "")
	cp.events = append(cp.events, schedEv)
	sched := newScheduler(schedAPI, schedCl, schedEv, s.PodsPerNode)
	cp.starters = append(cp.starters, sched.start)

	ksrc, klim := srcKubelet, l.Kubelet
	if s.HollowKubelets {
		ksrc, klim = srcHollowKubelet, l.HollowKubelet
	}
	kc := &component{name: "kubelet", limits: klim, source: ksrc}
	ke := &component{name: "kubelet (events)", limits: l.KubeletEvents, source: srcKubelet}
	kh := &component{name: "kubelet (heartbeat)", source: srcHeartbeat}
	for i := range s.Nodes {
		cl, evcl := newClient("kubelet", klim), newClient("kubelet (events)", l.KubeletEvents)
		hb := newClient("kubelet (heartbeat)", ClientLimits{QPS: math.Inf(1), Burst: 1})
		k := newKubelet(i, cp.api(i), cl, hb, evcl, &cp.s)
		kc.clients, ke.clients, kh.clients = append(kc.clients, cl), append(ke.clients, evcl), append(kh.clients, hb)
		cp.kubelets = append(cp.kubelets, k)
		cp.byNode[k.name] = k
	}
	cp.comps = append(cp.comps, kc, kh)
	if !s.HollowKubelets {
		cp.comps = append(cp.comps, ke)
	}

	// The control plane's own leases: kube-controller-manager's and
	// kube-scheduler's leader election, each apiserver's identity lease.
	cmLE := newClient("kube-controller-manager (leader election)", l.ControllerManager)
	schedLE := newClient("kube-scheduler (leader election)", l.Scheduler)
	loop := newClient("kube-apiserver (identity lease)", ClientLimits{QPS: math.Inf(1), Burst: 1})
	cp.comps = append(cp.comps,
		&component{name: "kube-controller-manager (leader election)", limits: l.ControllerManager, source: srcLeaderElection, clients: []*client{cmLE}},
		&component{name: "kube-scheduler (leader election)", limits: l.Scheduler, source: srcLeaderElection, clients: []*client{schedLE}},
		&component{name: "kube-apiserver (identity lease)", source: srcIdentityLease, clients: []*client{loop}})
	cp.leases = append(cp.leases, newLeaderElection(cp.api(0), cmLE, "kube-controller-manager"),
		newLeaderElection(schedAPI, schedLE, "kube-scheduler"))
	for i, a := range cp.apis {
		cp.leases = append(cp.leases, newIdentityLease(a, loop, i))
	}
	return cp
}

// api returns the apiserver a component of index i talks to.
func (cp *controlPlane) api(i int) *apiserver { return cp.apis[i%len(cp.apis)] }

// routePods sends each apiserver's pod events to the kubelets on it.
func (cp *controlPlane) routePods(ctx context.Context, wg *sync.WaitGroup) {
	for _, a := range cp.apis {
		a.cache(resPods).handle(func(e watchEvent) {
			o := e.cur.obj
			if o == nil {
				o = e.old.obj
			}
			if k := cp.byNode[o.(*corev1.Pod).Spec.NodeName]; k != nil && k.api == a {
				k.onPod(ctx, wg, e)
			}
		})
	}
}

// results returns the components as the result reports them.
func (cp *controlPlane) results() []result.KubeComponent {
	out := make([]result.KubeComponent, 0, len(cp.comps))
	for _, c := range cp.comps {
		k := result.KubeComponent{Name: c.name, QPS: c.limits.QPS, Burst: c.limits.Burst, Workers: c.workers, Source: c.source}
		if math.IsInf(k.QPS, 1) {
			k.QPS = 0
		}
		var throttled int64
		for _, cl := range c.clients {
			k.Requests += cl.requests.Load()
			throttled += cl.throttled.Load()
		}
		k.ThrottledSeconds = float64(throttled) / 1e9
		if c.name == "kubelet" || c.name == "kubelet (events)" || c.name == "kubelet (heartbeat)" {
			k.Name = fmt.Sprintf("%s ×%d", c.name, len(c.clients))
		}
		out = append(out, k)
	}
	return out
}
