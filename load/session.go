package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Options say how to reach the cluster the load goes to. It is a plain
// value.
type Options struct {
	// Conn is how to connect: TLS, user, dial timeout.
	Conn etcdclient.Config
	// Endpoints receive the load, connection i going to Endpoints[i mod
	// len] as in etcd benchmark v3.6; default Conn.Endpoints.
	Endpoints []string
	// Conns is the number of connections (what etcd benchmark calls conns).
	Conns int
	// Transport asks for a transport; "" lets Choose decide.
	Transport TransportKind
	// Pin keeps each connection's requests on its own endpoint, as etcd
	// benchmark v3.6 (one endpoint per client): while its member is down,
	// they fail. Without it a connection whose member cannot be reached
	// hands its requests to connections whose members can (as etcd's
	// client v3.7, which gives every connection every endpoint) and takes
	// them back once it reconnects.
	Pin bool
}

// Validate checks what can be checked before connecting. Its errors are
// invalid.Errorf errors naming the Options fields.
func (o Options) Validate() error {
	if o.Conns < 1 {
		return invalid.Errorf("{Conns} must be at least 1, not %d", o.Conns)
	}
	switch o.Transport {
	case "", Wire, GRPC:
	default:
		return invalid.Errorf("{Transport} must be %q or %q, not %q", Wire, GRPC, o.Transport)
	}
	return nil
}

// leaseCleanupTimeout bounds revoking a session's leases.
const leaseCleanupTimeout = 30 * time.Second

// Session is a workload on a set of connections: it runs measurements one
// after another (Run calls must not overlap) and holds what the workload
// keeps on the server between them (leases, granted for the client count
// of a run and kept while runs use the same count). Close releases it.
type Session struct {
	w       Workload
	members []string // the endpoint of connection i, one per member reached
	choice  Choice
	tr      transport
	leases  []int64
	timeout time.Duration // of the latest run, for revoking leases
}

// Open connects for workload w with the transport Choose picks. With the
// wire transport it fails unless at least one connection can be made;
// gRPC-go connects lazily and reports an unreachable endpoint as request
// errors.
func Open(ctx context.Context, o Options, w Workload) (*Session, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	eps := o.Endpoints
	if len(eps) == 0 {
		eps = o.Conn.Endpoints
	}
	if len(eps) == 0 {
		return nil, invalid.Errorf("{Endpoints}: give at least one endpoint")
	}
	s := &Session{w: w, choice: Choose(o.Transport, w, o.Conn)}
	for i := range min(o.Conns, len(eps)) {
		s.members = append(s.members, eps[i])
	}
	var err error
	switch s.choice.Transport {
	case GRPC:
		s.tr, err = dialGRPC(ctx, o.Conn, eps, o.Conns, o.Pin)
	default:
		s.tr, err = dialWire(ctx, o.Conn, eps, o.Conns, o.Pin)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Transport says which transport the session uses and why.
func (s *Session) Transport() Choice { return s.choice }

// Conns returns the number of connections.
func (s *Session) Conns() int { return s.tr.conns() }

// Run sends the workload's load according to spec and returns the
// measurement. Cancelling ctx stops it early (requests cut short by the
// cancellation are not counted); the partial result is still returned.
// It fails, before sending anything, on an invalid spec or when the
// workload's server state (leases) cannot be set up.
func (s *Session) Run(ctx context.Context, spec Spec) (result.Run, error) {
	if err := spec.Validate(); err != nil {
		return result.Run{}, err
	}
	s.timeout = spec.RequestTimeout
	if ttl := s.w.Needs().LeaseTTL; ttl > 0 && len(s.leases) != spec.Clients {
		_ = s.revoke(ctx)
		if err := s.grant(ctx, spec.Clients, ttl, spec.RequestTimeout); err != nil {
			return result.Run{}, err
		}
	}
	gens := make([]Client, spec.Clients)
	for i := range gens {
		info := ClientInfo{ID: i}
		if len(s.leases) > 0 {
			info.Lease = s.leases[i]
		}
		gens[i] = s.w.NewClient(info)
	}
	var probe *Request
	if p, ok := s.w.(Prober); ok {
		req := p.Probe()
		probe = &req
	}
	return runLoad(ctx, s.tr, s.w.Ops(), gens, spec, probe, s.members), nil
}

// grant grants n leases, lease i on connection i mod conns.
func (s *Session) grant(ctx context.Context, n int, ttl int64, timeout time.Duration) error {
	for i := range n {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		r := &pb.LeaseGrantResponse{}
		err := s.tr.invoke(cctx, i, MethodLeaseGrant, &pb.LeaseGrantRequest{TTL: ttl}, r)
		cancel()
		if err != nil {
			return fmt.Errorf("grant lease: %w", err)
		}
		s.leases = append(s.leases, r.ID)
	}
	return nil
}

// revoke revokes every lease granted, even when ctx is cancelled (Ctrl-C),
// within its own deadline.
func (s *Session) revoke(ctx context.Context) error {
	if len(s.leases) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseCleanupTimeout)
	defer cancel()
	var errs []error
	for _, id := range s.leases {
		cctx, cancel := context.WithTimeout(ctx, max(s.timeout, time.Second))
		err := s.tr.invoke(cctx, 0, MethodLeaseRevoke, &pb.LeaseRevokeRequest{ID: id}, &pb.LeaseRevokeResponse{})
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("revoke lease %x: %w", id, err))
		}
	}
	s.leases = nil
	return errors.Join(errs...)
}

// Close revokes the leases the session holds and closes its connections.
// Its error says what could not be revoked.
func (s *Session) Close() error {
	err := s.revoke(context.Background())
	s.tr.close()
	return err
}
