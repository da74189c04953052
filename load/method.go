package load

import (
	"fmt"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Method is an etcd gRPC method a request calls.
type Method int

// The methods workloads call.
const (
	MethodRange Method = iota
	MethodPut
	MethodTxn
	// MethodLeaseKeepAlive is a stream: each request opens one, sends one
	// renewal and waits for its answer (clientv3's KeepAliveOnce).
	MethodLeaseKeepAlive
	// MethodLeaseGrant and MethodLeaseRevoke grant and revoke a lease; a
	// Session also calls them itself for workloads that need leases.
	MethodLeaseGrant
	MethodLeaseRevoke
	// MethodDeleteRange deletes a key or a range.
	MethodDeleteRange
)

// methodInfo describes a method for the transports.
type methodInfo struct {
	name      string // full gRPC method name
	streaming bool   // a bidirectional stream: one request, one response
	// reply returns a new response message (the gRPC-go transport decodes
	// responses; wire does not).
	reply func() any
	// check, if set, turns a decoded response into an error.
	check func(reply any) error
}

// methods is the table of every Method; wire's method indexes are the
// same.
var methods = [...]methodInfo{ //nolint:gochecknoglobals // constant table
	MethodRange: {name: "/etcdserverpb.KV/Range", reply: func() any { return new(pb.RangeResponse) }},
	MethodPut:   {name: "/etcdserverpb.KV/Put", reply: func() any { return new(pb.PutResponse) }},
	MethodTxn:   {name: "/etcdserverpb.KV/Txn", reply: func() any { return new(pb.TxnResponse) }},
	MethodLeaseKeepAlive: {name: "/etcdserverpb.Lease/LeaseKeepAlive", streaming: true,
		reply: func() any { return new(pb.LeaseKeepAliveResponse) },
		check: func(reply any) error {
			if r := reply.(*pb.LeaseKeepAliveResponse); r.TTL <= 0 {
				return fmt.Errorf("lease %x expired", r.ID)
			}
			return nil
		}},
	MethodLeaseGrant:  {name: "/etcdserverpb.Lease/LeaseGrant", reply: func() any { return new(pb.LeaseGrantResponse) }},
	MethodLeaseRevoke: {name: "/etcdserverpb.Lease/LeaseRevoke", reply: func() any { return new(pb.LeaseRevokeResponse) }},
	MethodDeleteRange: {name: "/etcdserverpb.KV/DeleteRange", reply: func() any { return new(pb.DeleteRangeResponse) }},
}

// String is the method's full gRPC name.
func (m Method) String() string {
	if m < 0 || int(m) >= len(methods) {
		return fmt.Sprintf("Method(%d)", int(m))
	}
	return methods[m].name
}

// Streaming reports whether m is a streaming method.
func (m Method) Streaming() bool { return m >= 0 && int(m) < len(methods) && methods[m].streaming }

// methodNames lists every method's name, indexed by Method.
func methodNames() []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = m.name
	}
	return out
}
