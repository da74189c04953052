package kube

import (
	"context"
	"strconv"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
)

// apiserver is one emulated kube-apiserver: its watch caches (one per
// watched resource), its lease manager for events, and the API requests
// components send it, each taking a token of the sender's client. Safe
// for concurrent use once started.
type apiserver struct {
	id     int
	st     *store
	leases *leaseManager
	caches map[res]*cacher
	lim    Limits
}

func newAPIServer(id int, st *store, lim Limits, granted *grantedLeases) *apiserver {
	a := &apiserver{id: id, st: st, lim: lim, caches: map[res]*cacher{},
		leases: &leaseManager{st: st, reuse: lim.EventLeaseReuse, maxObjects: int64(lim.EventLeaseMaxObjects), granted: granted}}
	for _, r := range allResources() {
		if r.watched() {
			a.caches[r] = newCacher(st, r)
		}
	}
	a.caches[resPods].index("owner", ownerIndex)
	a.caches[resPods].index("namespace", namespaceIndex)
	a.caches[resPods].index("label", labelIndex)
	a.caches[resReplicaSets].index("owner", ownerIndex)
	a.caches[resSlices].index("owner", ownerIndex)
	a.caches[resServices].index("namespace", namespaceIndex)
	return a
}

func (a *apiserver) cache(r res) *cacher { return a.caches[r] }

// start runs the watch caches and kube-apiserver's background requests
// until ctx ends.
func (a *apiserver) start(ctx context.Context, wg *sync.WaitGroup) {
	for _, c := range a.caches {
		wg.Go(func() { c.run(ctx) })
	}
	wg.Go(func() { a.health(ctx) })
	wg.Go(func() { a.countObjects(ctx) })
	if a.id == 0 && a.lim.CompactionInterval > 0 {
		wg.Go(func() { a.compactLoop(ctx) })
	}
}

// synced waits until every cache has listed.
func (a *apiserver) synced(ctx context.Context) error {
	for _, c := range a.caches {
		select {
		case <-c.hasSynced():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (a *apiserver) create(ctx context.Context, c *client, r res, obj object) (entry, error) {
	return a.createOp(ctx, c, "create "+r.name(), r, obj)
}

func (a *apiserver) createOp(ctx context.Context, c *client, op string, r res, obj object) (entry, error) {
	if err := c.wait(ctx); err != nil {
		return entry{}, err
	}
	return a.st.create(ctx, op, r, obj, 0)
}

// update is an update, patch or subresource write of one object: the
// apiserver's GuaranteedUpdate from its watch cache's copy.
func (a *apiserver) update(ctx context.Context, c *client, op string, r res, ns, name string,
	fn func(cur object) (object, error)) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	key := a.st.keys.key(r, ns, name)
	var cached *entry
	if ch := a.caches[r]; ch != nil {
		if e, ok := ch.get(key); ok {
			cached = &e
		}
	}
	_, err := a.st.update(ctx, op, r, key, cached, 0, fn)
	return err
}

// updateRev is update returning the revision written (or the current one
// when nothing changed).
func (a *apiserver) updateRev(ctx context.Context, c *client, op string, r res, ns, name string,
	fn func(cur object) (object, error)) (int64, error) {
	if err := c.wait(ctx); err != nil {
		return 0, err
	}
	key := a.st.keys.key(r, ns, name)
	var cached *entry
	if e, ok := a.caches[r].get(key); ok {
		cached = &e
	}
	e, err := a.st.update(ctx, op, r, key, cached, 0, fn)
	return e.rev, err
}

// getObj is a GET with resourceVersion "" (a quorum read from etcd,
// CacheDelegator.Get in k8s.io/apiserver pkg/storage/cacher/delegator.go)
// returning the object.
func (a *apiserver) getObj(ctx context.Context, c *client, r res, ns, name string) (object, error) {
	if err := c.wait(ctx); err != nil {
		return nil, err
	}
	e, err := a.st.get(ctx, "get "+r.name(), r, a.st.keys.key(r, ns, name))
	return e.obj, err
}

// tokenRequest is a create of serviceaccounts/token bound to pod p, as the
// kubelet sends it to mount the pod's projected token: TokenREST.Create
// (pkg/registry/core/serviceaccount/storage/token.go) GETs the service
// account and the bound pod from storage with empty GetOptions, so both
// are quorum reads from etcd (its Get of the pod's node is with
// resourceVersion "0", from the watch cache); the token itself is signed,
// not stored.
func (a *apiserver) tokenRequest(ctx context.Context, c *client, p *corev1.Pod) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	const op = "create serviceaccounts/token"
	if err := a.st.read(ctx, op, resServiceAccounts, a.st.keys.key(resServiceAccounts, p.Namespace, p.Spec.ServiceAccountName)); err != nil {
		return err
	}
	return a.st.read(ctx, op, resPods, a.st.keys.key(resPods, p.Namespace, p.Name))
}

// remove is a DELETE without grace: the apiserver's conditional delete
// from its watch cache's copy.
func (a *apiserver) remove(ctx context.Context, c *client, r res, ns, name string) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	key := a.st.keys.key(r, ns, name)
	var cached *entry
	if ch := a.caches[r]; ch != nil {
		if e, ok := ch.get(key); ok {
			cached = &e
		}
	}
	return a.st.remove(ctx, "delete "+r.name(), r, key, cached)
}

// createEvent writes a new event with a lease of the event TTL.
func (a *apiserver) createEvent(ctx context.Context, c *client, ev object) error {
	if err := c.wait(ctx); err != nil {
		return err
	}
	lease, err := a.leases.get(ctx, a.lim.EventTTL)
	if err != nil {
		return err
	}
	_, err = a.st.create(ctx, "create events", resEvents, ev, lease)
	return err
}

// patchEvent updates an event (events have no watch cache: read first),
// attaching a lease of the event TTL again.
func (a *apiserver) patchEvent(ctx context.Context, c *client, ns, name string, fn func(cur object) (object, error)) (entry, error) {
	if err := c.wait(ctx); err != nil {
		return entry{}, err
	}
	lease, err := a.leases.get(ctx, a.lim.EventTTL)
	if err != nil {
		return entry{}, err
	}
	return a.st.update(ctx, "patch events", resEvents, a.st.keys.key(resEvents, ns, name), nil, lease, fn)
}

// health is the etcd health check behind /readyz, which kubeadm's
// readiness probe of kube-apiserver calls every HealthCheckInterval: a Get
// of /registry/health.
func (a *apiserver) health(ctx context.Context) {
	every(ctx, a.lim.HealthCheckInterval, func() {
		_, _ = a.st.do(ctx, "get health", func(ctx context.Context) error {
			_, err := a.st.cli.Get(ctx, a.st.keys.health())
			return err
		})
	})
}

// countObjects polls the object count of every resource each
// CountPollPeriod (kube-apiserver's --etcd-count-metric-poll-period).
func (a *apiserver) countObjects(ctx context.Context) {
	every(ctx, a.lim.CountPollPeriod, func() {
		for _, r := range allResources() {
			_, _ = a.st.count(ctx, r)
		}
	})
}

// compactLoop is kube-apiserver's compactor (k8s.io/apiserver
// pkg/storage/etcd3/compact.go): every interval a Txn on compact_rev_key
// (If Version = the last seen Then Put(rev) Else Get) elects one compactor,
// which compacts to the revision it saw an interval earlier. The key lives
// under the run's /registry prefix instead of etcd's root, so the cleanup
// removes it.
func (a *apiserver) compactLoop(ctx context.Context) {
	key := a.st.keys.root + "compact_rev_key"
	var version, rev int64
	every(ctx, a.lim.CompactionInterval, func() {
		var resp *clientv3.TxnResponse
		_, err := a.st.do(ctx, "compact", func(ctx context.Context) (err error) {
			resp, err = a.st.cli.Txn(ctx).If(clientv3.Compare(clientv3.Version(key), "=", version)).
				Then(clientv3.OpPut(key, strconv.FormatInt(rev, 10))).Else(clientv3.OpGet(key)).Commit()
			return err
		})
		if err != nil {
			return
		}
		cur := resp.Header.Revision
		if !resp.Succeeded {
			if kvs := resp.Responses[0].GetResponseRange().Kvs; len(kvs) > 0 {
				version = kvs[0].Version
			}
			rev = cur
			return
		}
		version++
		if rev != 0 {
			_, _ = a.st.do(ctx, "compact", func(ctx context.Context) error {
				_, err := a.st.cli.Compact(ctx, rev)
				return err
			})
		}
		rev = cur
	})
}

// every calls f each interval d until ctx ends, on the caller's
// goroutine; nothing when d is not positive.
func every(ctx context.Context, d time.Duration, f func()) {
	if d <= 0 {
		return
	}
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}
