package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/load"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/kubernetes"
)

// Errors of the storage layer, as kube-apiserver's storage returns them
// (k8s.io/apiserver pkg/storage: NewKeyExistsError, NewKeyNotFoundError).
var (
	errAlreadyExists = errors.New("kube: AlreadyExists")
	errNotFound      = errors.New("kube: NotFound")
	// errNoChange from an update function leaves the object as it is.
	errNoChange = errors.New("kube: no change")
)

// maxUpdateAttempts bounds GuaranteedUpdate's loop, which in
// kube-apiserver only ends with the request's context.
const maxUpdateAttempts = 100

// entry is one stored object: decoded, its bytes as etcd holds them, and
// its mod_revision. Objects in entries are shared and never modified.
type entry struct {
	obj  object
	data []byte
	rev  int64
}

// store is kube-apiserver's etcd3 storage layer (k8s.io/apiserver
// pkg/storage/etcd3/store.go) on etcd's own kubernetes.Interface: the
// request shapes, the conflict retries and "no write when the bytes did
// not change". Every etcd request is timed into rec under the API request
// it serves. Safe for concurrent use.
type store struct {
	kv  kubernetes.Interface
	cli *clientv3.Client
	// watcher is the run's own watcher on cli: Run closes it at its end,
	// which returns once its streams' goroutines have ended (the client's
	// shared watcher would end them in the background, after Run).
	watcher clientv3.Watcher
	keys    keys
	ops     *opTable
	rec     *load.Recorder
	timeout time.Duration
	lag     *lagTracker
	// watchers is how many watch caches see each watched resource's
	// events (one per apiserver).
	watchers int
	// decoded shares the watch caches' decoding of each event.
	decoded *sharedDecodes

	conflicts, unknownOps, shard atomic.Int64
	// dropped counts requests that ended after the run did (not
	// recorded: they say nothing about etcd).
	dropped atomic.Int64
	// etcd counts the recorded requests as etcd_requests_total does.
	etcd etcdCounts
	// objects is each resource's last count poll plus one (0: none yet),
	// apiserver_resource_objects.
	objects [numResources]atomic.Int64
}

// newStore sends the storage layer's requests through etcd's kubernetes
// client on cli, or, when remote is set, on a clientv3 KV over remote (see
// Spec.KV): the same requests, built by the same client code.
func newStore(cli *clientv3.Client, remote pb.KVClient, k keys, rec *load.Recorder, timeout time.Duration, lag *lagTracker, watchers int) *store {
	kc := &kubernetes.Client{Client: cli}
	if remote != nil {
		kc.Client = &clientv3.Client{KV: clientv3.NewKVFromKVClient(remote, nil)}
	}
	kc.Kubernetes = kc // as kubernetes.New does
	return &store{kv: kc, cli: cli, watcher: clientv3.NewWatcher(cli), keys: k, ops: newOpTable(), rec: rec, timeout: timeout, lag: lag, watchers: watchers,
		decoded: newSharedDecodes(watchers)}
}

// do sends one etcd request of operation op with the request timeout and
// records it. Failures caused by the run's own end (ctx cancelled) are not
// recorded: they say nothing about etcd.
func (s *store) do(ctx context.Context, op string, f func(ctx context.Context) error) (end time.Time, err error) {
	id := s.ops.id(op)
	if id < 0 {
		s.unknownOps.Add(1)
		id = 0
	}
	// shard numbers the requests sent (it spreads them over the
	// recorder's shards), so that those in flight are told without a
	// count of their own (inFlight).
	w := int(s.shard.Add(1))
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	sent := time.Now()
	err = f(rctx)
	end = time.Now()
	cancel()
	if err == nil || ctx.Err() == nil {
		s.rec.Record(w, id, sent, end, err)
	} else {
		s.dropped.Add(1)
	}
	return end, err
}

// doKube is do for a request of kube-apiserver's storage layer: it is
// also counted under its etcd_requests_total verb and resource.
func (s *store) doKube(ctx context.Context, op string, v etcdVerb, r res, f func(ctx context.Context) error) (time.Time, error) {
	end, err := s.do(ctx, op, f)
	if err == nil || ctx.Err() == nil {
		s.etcd.add(v, r)
	}
	return end, err
}

// inFlight returns the requests sent and not answered yet: sent, less
// recorded, less those that ended with the run (not recorded). It reads
// the sends first: requests answered while it reads the rest make it
// lower than the truth, never higher.
func (s *store) inFlight() int64 {
	sent := s.shard.Load()
	return max(0, sent-s.rec.Count()-s.dropped.Load())
}

// wrote notes a successful write for the watch-lag measurement.
func (s *store) wrote(r res, key string, rev int64, at time.Time) {
	if r.watched() {
		s.lag.wrote(key, rev, at, s.watchers)
	}
}

// read is a Get whose object nobody uses (the kubelet's GET before its
// status patch): the same request to etcd, without our decoding.
func (s *store) read(ctx context.Context, op string, r res, key string) error {
	var resp kubernetes.GetResponse
	_, err := s.doKube(ctx, op, verbGet, r, func(ctx context.Context) (err error) {
		resp, err = s.kv.Get(ctx, key, kubernetes.GetOptions{})
		return err
	})
	if err == nil && resp.KV == nil {
		err = fmt.Errorf("%w: %s", errNotFound, key)
	}
	return err
}

// get is a Get: Range(key, limit 1).
func (s *store) get(ctx context.Context, op string, r res, key string) (entry, error) {
	var resp kubernetes.GetResponse
	_, err := s.doKube(ctx, op, verbGet, r, func(ctx context.Context) (err error) {
		resp, err = s.kv.Get(ctx, key, kubernetes.GetOptions{})
		return err
	})
	if err != nil {
		return entry{}, err
	}
	if resp.KV == nil {
		return entry{}, fmt.Errorf("%w: %s", errNotFound, key)
	}
	obj, err := decode(r, resp.KV.Value, resp.KV.ModRevision)
	if err != nil {
		return entry{}, err
	}
	return entry{obj: obj, data: resp.KV.Value, rev: resp.KV.ModRevision}, nil
}

// create is a Create: Txn If(mod_revision(key) = 0) Then Put(key, value
// [, lease]); a key that exists fails with errAlreadyExists.
func (s *store) create(ctx context.Context, op string, r res, obj object, lease clientv3.LeaseID) (entry, error) {
	key := s.keys.key(r, obj.GetNamespace(), obj.GetName())
	data, err := encode(r, obj)
	if err != nil {
		return entry{}, err
	}
	var resp kubernetes.PutResponse
	end, err := s.doKube(ctx, op, verbCreate, r, func(ctx context.Context) (err error) {
		resp, err = s.kv.OptimisticPut(ctx, key, data, 0, kubernetes.PutOptions{LeaseID: lease})
		return err
	})
	if err != nil {
		return entry{}, err
	}
	if !resp.Succeeded {
		return entry{}, fmt.Errorf("%w: %s", errAlreadyExists, key)
	}
	s.wrote(r, key, resp.Revision, end)
	obj.SetResourceVersion(fmt.Sprint(resp.Revision))
	return entry{obj: obj, data: data, rev: resp.Revision}, nil
}

// update is GuaranteedUpdate: from cached (the watch cache's copy; nil
// reads the key first), fn makes the new object from a copy of the current
// one; the write is Txn If(mod_revision = current) Then Put Else Range,
// and a lost race retries from the object the Else branch returned. When
// the new bytes equal the current ones nothing is written (after a fresh
// read if the current object came from the cache), as store.go does.
func (s *store) update(ctx context.Context, op string, r res, key string, cached *entry,
	lease clientv3.LeaseID, fn func(cur object) (object, error)) (entry, error) {
	var cur entry
	fromCache := cached != nil && cached.obj != nil
	if fromCache {
		cur = *cached
	} else {
		var err error
		if cur, err = s.get(ctx, op, r, key); err != nil {
			return entry{}, err
		}
	}
	for range maxUpdateAttempts {
		next, err := fn(cur.obj.DeepCopyObject().(object))
		if errors.Is(err, errNoChange) {
			return cur, nil
		}
		if err != nil {
			return entry{}, err
		}
		data, err := encode(r, next)
		if err != nil {
			return entry{}, err
		}
		if bytes.Equal(data, cur.data) {
			if !fromCache {
				return cur, nil
			}
			if cur, err = s.get(ctx, op, r, key); err != nil {
				return entry{}, err
			}
			fromCache = false
			continue
		}
		var resp kubernetes.PutResponse
		end, err := s.doKube(ctx, op, verbUpdate, r, func(ctx context.Context) (err error) {
			resp, err = s.kv.OptimisticPut(ctx, key, data, cur.rev, kubernetes.PutOptions{GetOnFailure: true, LeaseID: lease})
			return err
		})
		if err != nil {
			return entry{}, err
		}
		if resp.Succeeded {
			s.wrote(r, key, resp.Revision, end)
			next.SetResourceVersion(fmt.Sprint(resp.Revision))
			return entry{obj: next, data: data, rev: resp.Revision}, nil
		}
		s.conflicts.Add(1)
		if resp.KV == nil {
			return entry{}, fmt.Errorf("%w: %s", errNotFound, key)
		}
		obj, err := decode(r, resp.KV.Value, resp.KV.ModRevision)
		if err != nil {
			return entry{}, err
		}
		cur, fromCache = entry{obj: obj, data: resp.KV.Value, rev: resp.KV.ModRevision}, false
	}
	return entry{}, fmt.Errorf("kube: update %s: gave up after %d conflicts", key, maxUpdateAttempts)
}

// remove is a Delete: Txn If(mod_revision = current) Then DeleteRange(key)
// Else Range(key), from cached (nil reads first), retrying from the
// returned object until it wins or the key is gone (errNotFound).
func (s *store) remove(ctx context.Context, op string, r res, key string, cached *entry) error {
	var rev int64
	if cached != nil && cached.obj != nil {
		rev = cached.rev
	} else {
		cur, err := s.get(ctx, op, r, key)
		if err != nil {
			return err
		}
		rev = cur.rev
	}
	for range maxUpdateAttempts {
		var resp kubernetes.DeleteResponse
		end, err := s.doKube(ctx, op, verbDelete, r, func(ctx context.Context) (err error) {
			resp, err = s.kv.OptimisticDelete(ctx, key, rev, kubernetes.DeleteOptions{GetOnFailure: true})
			return err
		})
		if err != nil {
			return err
		}
		if resp.Succeeded {
			s.wrote(r, key, resp.Revision, end)
			return nil
		}
		s.conflicts.Add(1)
		if resp.KV == nil {
			return fmt.Errorf("%w: %s", errNotFound, key)
		}
		rev = resp.KV.ModRevision
	}
	return fmt.Errorf("kube: delete %s: gave up after %d conflicts", key, maxUpdateAttempts)
}

// list is a paginated List of r's prefix: Range(prefix, limit) pinned at
// the first page's revision, each next page from the last key + "\x00".
// It returns the entries and the revision they are consistent at.
func (s *store) list(ctx context.Context, r res, limit int64) ([]entry, int64, error) {
	prefix := s.keys.resourcePrefix(r)
	var out []entry
	var rev int64
	cont := ""
	for {
		var resp kubernetes.ListResponse
		_, err := s.doKube(ctx, "list "+r.name(), verbList, r, func(ctx context.Context) (err error) {
			resp, err = s.kv.List(ctx, prefix, kubernetes.ListOptions{Revision: rev, Limit: limit, Continue: cont})
			return err
		})
		if err != nil {
			return nil, 0, err
		}
		if rev == 0 {
			rev = resp.Revision // the header's revision, pinned for the next pages
		}
		for _, kv := range resp.Kvs {
			obj, err := decode(r, kv.Value, kv.ModRevision)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, entry{obj: obj, data: kv.Value, rev: kv.ModRevision})
		}
		// More pages when this one was full and the range holds more
		// (etcd's Count is of the whole range from the continue key).
		if limit == 0 || int64(len(resp.Kvs)) < limit || resp.Count <= int64(len(resp.Kvs)) {
			return out, rev, nil
		}
		cont = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
	}
}

// count is Count: a count-only Range over r's prefix, as kube-apiserver's
// object-count metric polls it.
func (s *store) count(ctx context.Context, r res) (int64, error) {
	var n int64
	_, err := s.doKube(ctx, "count", verbCount, r, func(ctx context.Context) (err error) {
		n, err = s.kv.Count(ctx, s.keys.resourcePrefix(r), kubernetes.CountOptions{})
		return err
	})
	if err == nil {
		s.objects[r].Store(n + 1)
	}
	return n, err
}

func isAlreadyExists(err error) bool { return errors.Is(err, errAlreadyExists) }
