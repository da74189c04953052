package load

import (
	"context"
	"errors"
	"fmt"
	"sync"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// LeaseKeepalive renews one lease per client, as `benchmark
// lease-keepalive`: each request opens a keep-alive stream, sends one
// renewal and waits for its answer (clientv3's KeepAliveOnce). Leases are
// granted by Prepare and revoked by Clean.
type LeaseKeepalive struct {
	TTL int64
	mu  sync.Mutex
	ids []int64
}

// Ops implements Workload.
func (*LeaseKeepalive) Ops() []string { return []string{"lease-keepalive"} }

// Prepare grants one lease per client.
func (l *LeaseKeepalive) Prepare(ctx context.Context, pool Pool, clients int) error {
	ids := make([]int64, clients)
	for i := range ids {
		r, err := pool.For(i).Lease.LeaseGrant(ctx, &pb.LeaseGrantRequest{TTL: l.TTL})
		if err != nil {
			l.setIDs(ids[:i])
			return fmt.Errorf("grant lease: %w", err)
		}
		ids[i] = r.ID
	}
	l.setIDs(ids)
	return nil
}

func (l *LeaseKeepalive) setIDs(ids []int64) {
	l.mu.Lock()
	l.ids = append(l.ids, ids...)
	l.mu.Unlock()
}

// Clean revokes every lease granted.
func (l *LeaseKeepalive) Clean(ctx context.Context, pool Pool) error {
	l.mu.Lock()
	ids := l.ids
	l.ids = nil
	l.mu.Unlock()
	var errs []error
	for _, id := range ids {
		if _, err := pool[0].Lease.LeaseRevoke(ctx, &pb.LeaseRevokeRequest{ID: id}); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// NewWorker implements Workload.
func (l *LeaseKeepalive) NewWorker(id int) Worker {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &leaseWorker{id: l.ids[id%len(l.ids)]}
}

type leaseWorker struct{ id int64 }

func (w *leaseWorker) Do(ctx context.Context, c *Conn, _ int64) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s, err := c.Lease.LeaseKeepAlive(ctx)
	if err != nil {
		return 0, err
	}
	if err := s.Send(&pb.LeaseKeepAliveRequest{ID: w.id}); err != nil {
		return 0, err
	}
	r, err := s.Recv()
	if err != nil {
		return 0, err
	}
	if r.TTL <= 0 {
		return 0, fmt.Errorf("lease %x expired", w.id)
	}
	return 0, s.CloseSend()
}

// Preparer is implemented by workloads that need server state before the
// first request (leases).
type Preparer interface {
	Prepare(ctx context.Context, pool Pool, clients int) error
}
