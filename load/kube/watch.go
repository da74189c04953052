package kube

import (
	"context"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// watchListPageSize is the page size of the watch cache's list
// (storageWatchListPageSize = 10000 in k8s.io/apiserver
// pkg/storage/cacher).
const watchListPageSize = 10000

// evKind is what happened to an object.
type evKind int

const (
	evAdded evKind = iota
	evModified
	evDeleted
)

// watchEvent is one change the watch cache saw; cur is the zero entry for
// a deletion, old the zero entry for an addition.
type watchEvent struct {
	kind     evKind
	key      string
	cur, old entry
}

// indexFunc names the index values of an object (its owner's UID, its
// node); a cacher keeps one index per name.
type indexFunc func(object) []string

// cacher is one apiserver's watch cache of one resource (k8s.io/apiserver
// pkg/storage/cacher): it lists the resource prefix (paginated, pinned
// revision), then watches it from the list revision + 1 with prev_kv and
// progress notifications under WithRequireLeader, relisting when the watch
// fails. Components read from it (their informers are served from the
// apiserver's cache) and get its events through handlers, called in order
// from its goroutine; handlers must not block. Handlers and indexes are
// registered before run; everything else is safe for concurrent use.
type cacher struct {
	st  *store
	res res

	handlers []func(watchEvent)
	indexers map[string]indexFunc

	mu      sync.RWMutex
	items   map[string]entry
	indexes map[string]map[string]map[string]struct{} // index name → value → keys
	synced  chan struct{}
}

func newCacher(st *store, r res) *cacher {
	return &cacher{st: st, res: r, indexers: map[string]indexFunc{}, items: map[string]entry{},
		indexes: map[string]map[string]map[string]struct{}{}, synced: make(chan struct{})}
}

func (c *cacher) handle(h func(watchEvent)) { c.handlers = append(c.handlers, h) }
func (c *cacher) index(name string, f indexFunc) {
	c.indexers[name] = f
	c.indexes[name] = map[string]map[string]struct{}{}
}
func (c *cacher) hasSynced() <-chan struct{}          { return c.synced }
func (c *cacher) key(ns, name string) string          { return c.st.keys.key(c.res, ns, name) }
func (c *cacher) getNS(ns, name string) (entry, bool) { return c.get(c.key(ns, name)) }
func (c *cacher) get(key string) (entry, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.items[key]
	return e, ok
}
func (c *cacher) len() int { c.mu.RLock(); defer c.mu.RUnlock(); return len(c.items) }

// byIndex returns the entries whose index name has value v.
func (c *cacher) byIndex(name, v string) []entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []entry
	for k := range c.indexes[name][v] {
		out = append(out, c.items[k])
	}
	return out
}

// all returns every entry.
func (c *cacher) all() []entry {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]entry, 0, len(c.items))
	for _, e := range c.items {
		out = append(out, e)
	}
	return out
}

// run lists and watches until ctx ends.
func (c *cacher) run(ctx context.Context) {
	first := true
	for ctx.Err() == nil {
		rev, err := c.relist(ctx)
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		if first {
			close(c.synced)
			first = false
		}
		_ = c.watch(ctx, rev+1)
		sleep(ctx, 100*time.Millisecond)
	}
}

// relist replaces the cache with a fresh list and tells the handlers
// what changed.
func (c *cacher) relist(ctx context.Context) (int64, error) {
	list, rev, err := c.st.list(ctx, c.res, watchListPageSize)
	if err != nil {
		return 0, err
	}
	fresh := map[string]entry{}
	for _, e := range list {
		fresh[c.st.keys.key(c.res, e.obj.GetNamespace(), e.obj.GetName())] = e
	}
	c.mu.RLock()
	var evs []watchEvent
	for k, e := range fresh {
		old, ok := c.items[k]
		switch {
		case !ok:
			evs = append(evs, watchEvent{kind: evAdded, key: k, cur: e})
		case old.rev != e.rev:
			evs = append(evs, watchEvent{kind: evModified, key: k, cur: e, old: old})
		}
	}
	for k, old := range c.items {
		if _, ok := fresh[k]; !ok {
			evs = append(evs, watchEvent{kind: evDeleted, key: k, old: old})
		}
	}
	c.mu.RUnlock()
	for _, ev := range evs {
		c.apply(ev)
	}
	return rev, nil
}

// watch follows the prefix from rev until the watch fails or ctx ends.
func (c *cacher) watch(ctx context.Context, rev int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	ch := c.st.watcher.Watch(wctx, c.st.keys.resourcePrefix(c.res), clientv3.WithPrefix(), clientv3.WithRev(rev),
		clientv3.WithPrevKV(), clientv3.WithProgressNotify())
	for resp := range ch {
		if err := resp.Err(); err != nil {
			return err
		}
		now := time.Now()
		for _, ev := range resp.Events {
			key := string(ev.Kv.Key)
			c.st.lag.seen(key, ev.Kv.ModRevision, now)
			if ev.Type == clientv3.EventTypeDelete {
				old, _ := c.get(key)
				c.apply(watchEvent{kind: evDeleted, key: key, old: old})
				continue
			}
			obj, err := c.st.decoded.decode(c.res, ev.Kv.Key, ev.Kv.Value, ev.Kv.ModRevision)
			if err != nil {
				return err
			}
			cur := entry{obj: obj, data: ev.Kv.Value, rev: ev.Kv.ModRevision}
			old, ok := c.get(key)
			kind := evModified
			if !ok {
				kind = evAdded
			}
			c.apply(watchEvent{kind: kind, key: key, cur: cur, old: old})
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("kube: watch of %s ended", c.res.name())
}

// apply updates the cache and its indexes, then calls the handlers.
func (c *cacher) apply(ev watchEvent) {
	c.mu.Lock()
	if ev.old.obj != nil {
		for name, f := range c.indexers {
			for _, v := range f(ev.old.obj) {
				delete(c.indexes[name][v], ev.key)
			}
		}
	}
	if ev.kind == evDeleted {
		delete(c.items, ev.key)
	} else {
		c.items[ev.key] = ev.cur
		for name, f := range c.indexers {
			for _, v := range f(ev.cur.obj) {
				m := c.indexes[name][v]
				if m == nil {
					m = map[string]struct{}{}
					c.indexes[name][v] = m
				}
				m[ev.key] = struct{}{}
			}
		}
	}
	c.mu.Unlock()
	for _, h := range c.handlers {
		h(ev)
	}
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// ownerIndex indexes objects by their controller owner's UID.
func ownerIndex(o object) []string {
	for _, r := range o.GetOwnerReferences() {
		if r.Controller != nil && *r.Controller {
			return []string{string(r.UID)}
		}
	}
	return nil
}

// labelIndex indexes objects by each of their labels, as
// "namespace/key=value": a selector's pods are among those of any one of
// its pairs (the endpoints controllers' lookups, which would otherwise
// scan the namespace on every sync).
func labelIndex(o object) []string {
	ls := o.GetLabels()
	out := make([]string, 0, len(ls))
	for k, v := range ls {
		out = append(out, labelKey(o.GetNamespace(), k, v))
	}
	return out
}

func labelKey(ns, k, v string) string { return ns + "/" + k + "=" + v }

// namespaceIndex indexes objects by namespace.
func namespaceIndex(o object) []string { return []string{o.GetNamespace()} }
