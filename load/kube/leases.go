package kube

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaseReusePercent is the share of the TTL a lease is reused for, when
// below the reuse duration (newDefaultLeaseManager's 0.05 in k8s.io/apiserver
// pkg/storage/etcd3/lease_manager.go).
const leaseReusePercent = 0.05

// leaseManager is kube-apiserver's lease manager for objects written with
// a TTL (events): one lease is reused while it is still valid for the TTL
// and sufficient (at most the reuse duration longer), for at most
// maxObjects objects (k8s.io/apiserver pkg/storage/etcd3/lease_manager.go,
// defaults 60 s and 1,000). One per apiserver; safe for concurrent use.
type leaseManager struct {
	st         *store
	reuse      time.Duration
	maxObjects int64

	mu       sync.Mutex
	prevID   clientv3.LeaseID
	prevExp  time.Time
	attached int64
	granted  *grantedLeases
}

// grantedLeases collects every lease a run granted, to revoke them at the
// end. Safe for concurrent use.
type grantedLeases struct {
	mu  sync.Mutex
	ids []clientv3.LeaseID
}

func (g *grantedLeases) add(id clientv3.LeaseID) {
	g.mu.Lock()
	g.ids = append(g.ids, id)
	g.mu.Unlock()
}

func (g *grantedLeases) all() []clientv3.LeaseID {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]clientv3.LeaseID(nil), g.ids...)
}

// get returns a lease for an object with ttl, granting a new one (with
// the reuse duration added to its TTL) when the previous one cannot be
// reused, as GetLease does.
func (l *leaseManager) get(ctx context.Context, ttl time.Duration) (clientv3.LeaseID, error) {
	ttlSec := int64(ttl / time.Second)
	reuseSec := min(int64(leaseReusePercent*float64(ttlSec)), int64(l.reuse/time.Second))
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	valid := now.Add(time.Duration(ttlSec) * time.Second).Before(l.prevExp)
	sufficient := now.Add(time.Duration(ttlSec+reuseSec) * time.Second).After(l.prevExp)
	l.attached++
	if valid && sufficient && l.attached <= l.maxObjects {
		return l.prevID, nil
	}
	ttlSec += reuseSec
	var id clientv3.LeaseID
	_, err := l.st.do(ctx, "grant leases (events)", func(ctx context.Context) error {
		resp, err := l.st.cli.Grant(ctx, ttlSec)
		if err == nil {
			id = resp.ID
		}
		return err
	})
	if err != nil {
		return 0, err
	}
	l.granted.add(id)
	l.prevID, l.prevExp, l.attached = id, now.Add(time.Duration(ttlSec)*time.Second), 1
	return id, nil
}
