package kube

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// endpointsController is both kube-controller-manager's endpoints
// controller (slices false: one Endpoints per service) and its
// EndpointSlice controller (slices true: EndpointSlices of at most
// perSlice endpoints, owned by the service). A service is queued when it
// changes, when a pod it selects is added or deleted, and when a pod it
// selects changes in a way that may change its endpoints (podEndpointsChanged,
// k8s.io/endpointslice util/controller_utils.go, which both controllers'
// updatePod use through GetServicesToUpdateOnPodChange): the workqueue
// then merges the changes that arrive while the service waits. A sync
// writes only what differs, and neither controller acts on a cache older
// than its own last write: the endpoints controller's
// staleEndpointsTracker (pkg/controller/endpoint/endpoints_tracker.go),
// the EndpointSlice controller's endpointSliceTracker. Safe for
// concurrent use.
type endpointsController struct {
	api      *apiserver
	cl       *client
	q        *queue
	slices   bool
	perSlice int

	// wrote tracks the slices this controller wrote, by service UID:
	// slice name → revision. A sync whose cache has not caught up with
	// them retries later instead of acting on stale slices, as the
	// EndpointSlice controller's endpointSliceTracker does.
	mu    sync.Mutex
	wrote map[string]map[string]int64
	// staleRev is, per Endpoints key, the revision this controller last
	// updated from: a cache still showing it is stale.
	staleRev map[string]int64
}

// errStaleCache makes a sync retry once the cache caught up.
var errStaleCache = errors.New("kube: endpointslice cache is older than this controller's own writes")

func newEndpointsController(api *apiserver, cl *client, slices bool, perSlice int) *endpointsController {
	q := newQueue()
	if slices {
		q = newQueueBackoff(sliceSyncRetryBase)
	}
	c := &endpointsController{api: api, cl: cl, q: q, slices: slices, perSlice: perSlice,
		wrote: map[string]map[string]int64{}, staleRev: map[string]int64{}}
	api.cache(resServices).handle(func(e watchEvent) {
		o := e.cur.obj
		if o == nil {
			o = e.old.obj
		}
		c.q.add(nsName(o))
	})
	api.cache(resPods).handle(func(e watchEvent) {
		if e.kind == evModified && !podEndpointsChanged(e.old.obj.(*corev1.Pod), e.cur.obj.(*corev1.Pod)) {
			return
		}
		for _, o := range []object{e.cur.obj, e.old.obj} {
			if o == nil {
				continue
			}
			for _, s := range api.cache(resServices).byIndex("namespace", o.GetNamespace()) {
				svc := s.obj.(*corev1.Service)
				if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(o.GetLabels())) {
					c.q.add(nsName(svc))
				}
			}
		}
	})
	return c
}

func (c *endpointsController) start(ctx context.Context, wg *sync.WaitGroup, workers int) {
	runWorkers(ctx, wg, workers, c.q, c.sync)
}

// backend is one pod behind a service.
type backend struct {
	ip, node, name string
	pod            *corev1.Pod
	ready          bool
}

func (c *endpointsController) backends(svc *corev1.Service) []backend {
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	var out []backend
	if len(svc.Spec.Selector) == 0 {
		return nil // a service without a selector has no pods (its endpoints are managed by hand)
	}
	var k0 string // any one pair: every selected pod carries it
	for k := range svc.Spec.Selector {
		if k0 == "" || k < k0 {
			k0 = k
		}
	}
	for _, e := range c.api.cache(resPods).byIndex("label", labelKey(svc.Namespace, k0, svc.Spec.Selector[k0])) {
		p := e.obj.(*corev1.Pod)
		if p.Status.PodIP == "" || p.DeletionTimestamp != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		out = append(out, backend{ip: p.Status.PodIP, node: p.Spec.NodeName, name: p.Name, pod: p, ready: podReady(p)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ip < out[j].ip })
	return out
}

func (c *endpointsController) sync(ctx context.Context, key string) error {
	ns, name := splitKey(key)
	se, ok := c.api.cache(resServices).getNS(ns, name)
	if c.slices {
		if !ok {
			return nil // the garbage collector removes the slices
		}
		return c.syncSlices(ctx, se.obj.(*corev1.Service))
	}
	if !ok {
		if _, ok := c.api.cache(resEndpoints).getNS(ns, name); ok {
			if err := c.api.remove(ctx, c.cl, resEndpoints, ns, name); err != nil && !isNotFound(err) {
				return err
			}
			c.mu.Lock()
			delete(c.staleRev, key)
			c.mu.Unlock()
		}
		return nil
	}
	svc := se.obj.(*corev1.Service)
	subsets := endpointSubsets(c.backends(svc))
	cur, exists := c.api.cache(resEndpoints).getNS(ns, name)
	c.mu.Lock()
	stale := exists && c.staleRev[key] == cur.rev
	c.mu.Unlock()
	if stale {
		return errStaleCache
	}
	if !exists {
		ep := &corev1.Endpoints{ObjectMeta: meta(name, ns, svc.Labels, time.Now()), Subsets: subsets} //nolint:staticcheck // written by the endpoints controller
		ep.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": time.Now().UTC().Format(time.RFC3339Nano)}
		_, err := c.api.create(ctx, c.cl, resEndpoints, ep)
		return err
	}
	if subsetsEqual(cur.obj.(*corev1.Endpoints).Subsets, subsets) { //nolint:staticcheck // see above
		return nil
	}
	rev, err := c.api.updateRev(ctx, c.cl, "update endpoints", resEndpoints, ns, name, func(o object) (object, error) {
		ep := o.(*corev1.Endpoints) //nolint:staticcheck // see above
		ep.Subsets = subsets
		ep.Annotations = map[string]string{"endpoints.kubernetes.io/last-change-trigger-time": time.Now().UTC().Format(time.RFC3339Nano)}
		return ep, nil
	})
	if err == nil && rev != cur.rev {
		c.mu.Lock()
		c.staleRev[key] = cur.rev
		c.mu.Unlock()
	}
	return err
}

// podEndpointsChanged reports whether a pod's update may change its
// services' endpoints: its labels, deletion, readiness or IPs
// (podEndpointsChanged, k8s.io/endpointslice util/controller_utils.go; the
// emulated pods have no hostname or subdomain).
func podEndpointsChanged(old, cur *corev1.Pod) bool {
	if !maps.Equal(old.Labels, cur.Labels) || (old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil) ||
		podReady(old) != podReady(cur) || len(old.Status.PodIPs) != len(cur.Status.PodIPs) {
		return true
	}
	for i := range old.Status.PodIPs {
		if old.Status.PodIPs[i].IP != cur.Status.PodIPs[i].IP {
			return true
		}
	}
	return false
}

func endpointSubsets(bs []backend) []corev1.EndpointSubset { //nolint:staticcheck // Endpoints API
	if len(bs) == 0 {
		return nil
	}
	s := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Port: containerPort, Protocol: corev1.ProtocolTCP}}} //nolint:staticcheck // Endpoints API
	for _, b := range bs {
		node := b.node
		a := corev1.EndpointAddress{IP: b.ip, NodeName: &node, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: b.pod.Namespace, Name: b.name, UID: b.pod.UID}}
		if b.ready {
			s.Addresses = append(s.Addresses, a)
		} else {
			s.NotReadyAddresses = append(s.NotReadyAddresses, a)
		}
	}
	return []corev1.EndpointSubset{s} //nolint:staticcheck // Endpoints API
}

func subsetsEqual(a, b []corev1.EndpointSubset) bool { //nolint:staticcheck // Endpoints API
	addrs := func(s []corev1.EndpointSubset) (r, nr []string) { //nolint:staticcheck // Endpoints API
		for _, x := range s {
			for _, a := range x.Addresses {
				r = append(r, a.IP)
			}
			for _, a := range x.NotReadyAddresses {
				nr = append(nr, a.IP)
			}
		}
		return r, nr
	}
	ar, anr := addrs(a)
	br, bnr := addrs(b)
	return slices.Equal(ar, br) && slices.Equal(anr, bnr)
}

// syncSlices fills the service's slices in order with its endpoints,
// creating, updating and deleting slices so each holds at most perSlice.
func (c *endpointsController) syncSlices(ctx context.Context, svc *corev1.Service) error {
	bs := c.backends(svc)
	have := c.api.cache(resSlices).byIndex("owner", string(svc.UID))
	if c.stale(string(svc.UID), have) {
		return errStaleCache
	}
	sort.Slice(have, func(i, j int) bool { return have[i].obj.GetName() < have[j].obj.GetName() })
	n := (len(bs) + c.perSlice - 1) / c.perSlice
	for i := 0; i < max(n, len(have), 1); i++ {
		var part []backend
		if lo := i * c.perSlice; lo < len(bs) {
			part = bs[lo:min(lo+c.perSlice, len(bs))]
		}
		eps := sliceEndpoints(part)
		switch {
		case i < len(have) && i >= max(n, 1):
			if err := c.api.remove(ctx, c.cl, resSlices, svc.Namespace, have[i].obj.GetName()); err != nil && !isNotFound(err) {
				return err
			}
			c.track(string(svc.UID), have[i].obj.GetName(), -1)
		case i < len(have):
			if sliceEqual(have[i].obj.(*discoveryv1.EndpointSlice).Endpoints, eps) {
				continue
			}
			rev, err := c.api.updateRev(ctx, c.cl, "update endpointslices", resSlices, svc.Namespace, have[i].obj.GetName(), func(o object) (object, error) {
				s := o.(*discoveryv1.EndpointSlice)
				s.Endpoints = eps
				return s, nil
			})
			if err != nil {
				return err
			}
			c.track(string(svc.UID), have[i].obj.GetName(), rev)
		default:
			proto := corev1.ProtocolTCP
			port, pname := int32(containerPort), ""
			s := &discoveryv1.EndpointSlice{ObjectMeta: meta(randName(svc.Name+"-"), svc.Namespace, map[string]string{
				"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io", "kubernetes.io/service-name": svc.Name}, time.Now()),
				AddressType: discoveryv1.AddressTypeIPv4, Endpoints: eps, Ports: []discoveryv1.EndpointPort{{Name: &pname, Port: &port, Protocol: &proto}}}
			s.GenerateName = svc.Name + "-"
			s.OwnerReferences = controllerRef("Service", "v1", svc.Name, svc.UID)
			e, err := c.api.create(ctx, c.cl, resSlices, s)
			if err != nil {
				return err
			}
			c.track(string(svc.UID), s.Name, e.rev)
		}
	}
	return nil
}

// track notes a slice written at rev (-1: deleted).
func (c *endpointsController) track(svc, name string, rev int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.wrote[svc]
	if m == nil {
		m = map[string]int64{}
		c.wrote[svc] = m
	}
	m[name] = rev
}

// stale reports whether the cache misses a write of this controller.
func (c *endpointsController) stale(svc string, have []entry) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[string]int64{}
	for _, e := range have {
		seen[e.obj.GetName()] = e.rev
	}
	for name, rev := range c.wrote[svc] {
		got, ok := seen[name]
		if (rev >= 0 && (!ok || got < rev)) || (rev < 0 && ok) {
			return true
		}
	}
	return false
}

func sliceEndpoints(bs []backend) []discoveryv1.Endpoint {
	out := make([]discoveryv1.Endpoint, 0, len(bs))
	for _, b := range bs {
		ready, serving, term := b.ready, b.ready, false
		node := b.node
		out = append(out, discoveryv1.Endpoint{Addresses: []string{b.ip}, NodeName: &node,
			Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &term},
			TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: b.pod.Namespace, Name: b.name, UID: b.pod.UID}})
	}
	return out
}

func sliceEqual(a, b []discoveryv1.Endpoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Addresses[0] != b[i].Addresses[0] || *a[i].Conditions.Ready != *b[i].Conditions.Ready {
			return false
		}
	}
	return true
}

func isNotFound(err error) bool { return errors.Is(err, errNotFound) }
