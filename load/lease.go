package load

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// LeaseKeepalive renews one lease per client, as `benchmark
// lease-keepalive`: each request opens a keep-alive stream, sends one
// renewal and waits for its answer (clientv3's KeepAliveOnce). The Session
// grants the leases before a run and revokes them after. A renewal answered
// with TTL 0 (the lease expired) is an error.
type LeaseKeepalive struct {
	// TTL is each lease's TTL in seconds.
	TTL int64
}

// Ops implements Workload.
func (LeaseKeepalive) Ops() []string { return []string{"lease-keepalive"} }

// Needs implements Workload.
func (w LeaseKeepalive) Needs() Needs {
	return Needs{Methods: []Method{MethodLeaseKeepAlive}, LeaseTTL: w.TTL}
}

// NewClient implements Workload.
func (LeaseKeepalive) NewClient(c ClientInfo) Client {
	return &leaseClient{msg: asMessage(&pb.LeaseKeepAliveRequest{ID: c.Lease})}
}

type leaseClient struct{ msg Message }

func (l *leaseClient) Next(int64) Request { return Request{Method: MethodLeaseKeepAlive, Msg: l.msg} }
