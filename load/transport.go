package load

import (
	"context"
	"errors"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// transport sends the requests of simulated clients over a set of
// connections, asynchronously. Two implement it: wireTransport (package
// load/wire) and grpcTransport (gRPC-go). Its methods are safe for
// concurrent use.
type transport interface {
	// send starts c's current request (c.req, due by c.deadline, for client
	// c.id). It does not wait for the network: c.Done is called exactly
	// once when the request ends, from any goroutine, maybe before send
	// returns (when it could not be sent).
	send(c *client)
	// sendTo starts c's request on connection conn only, whatever its
	// state, concurrently with other requests of c's client: a canary's.
	// c.Done is called exactly once, as for send.
	sendTo(c *client, conn int)
	// invoke makes one blocking unary call on connection conn and decodes
	// the reply: for a Session's own calls (lease grants).
	invoke(ctx context.Context, conn int, m Method, req, reply any) error
	// authenticates reports whether the transport sends an auth token;
	// refreshAuth fetches a new one (errNoAuth when it sends none).
	authenticates() bool
	refreshAuth(ctx context.Context) error
	// conns returns the number of connections.
	conns() int
	// close closes the connections; requests in flight end with an error.
	close()
}

var errNoAuth = errors.New("no credentials to refresh")

// TransportKind names a transport.
type TransportKind string

// The transports.
const (
	// Wire is etcdlab's asynchronous unary-gRPC transport (package
	// load/wire): a client is a record, not a goroutine. The default.
	Wire TransportKind = "wire"
	// GRPC is gRPC-go, with a goroutine per client as etcd benchmark. It
	// sends streaming calls and refreshes auth tokens.
	GRPC TransportKind = "grpc"
)

// Reason says why a transport was chosen.
type Reason int

// Reasons for a transport.
const (
	// ReasonDefault: nothing asked for another transport than Wire.
	ReasonDefault Reason = iota
	// ReasonAsked: Options.Transport asked for it.
	ReasonAsked
	// ReasonStreaming: the workload calls a streaming method, which only
	// the gRPC-go transport sends.
	ReasonStreaming
	// ReasonLeases: the workload holds leases, which only the gRPC-go
	// transport grants (wire does not decode replies).
	ReasonLeases
	// ReasonAuth: the connection authenticates as a user, and only the
	// gRPC-go transport sends and refreshes the token.
	ReasonAuth
)

// String says the reason in words.
func (r Reason) String() string {
	switch r {
	case ReasonAsked:
		return "asked for"
	case ReasonStreaming:
		return "the workload sends streaming calls, which only the gRPC-go transport sends"
	case ReasonLeases:
		return "the workload holds leases, which only the gRPC-go transport grants"
	case ReasonAuth:
		return "the connection authenticates as a user, and only the gRPC-go transport refreshes the token"
	}
	return "the default"
}

// Choice is the transport a Session uses and why.
type Choice struct {
	Transport TransportKind
	Reason    Reason
}

// Choose picks the transport for workload w over connections configured by
// conn, when asked ("" for no preference) asks for one: Wire unless the
// workload or the connection needs gRPC-go, or GRPC is asked for. A
// workload's needs win over what is asked.
func Choose(asked TransportKind, w Workload, conn etcdclient.Config) Choice {
	needs := w.Needs()
	for _, m := range needs.Methods {
		if m.Streaming() {
			return Choice{GRPC, ReasonStreaming}
		}
	}
	switch {
	case needs.LeaseTTL > 0:
		return Choice{GRPC, ReasonLeases}
	case conn.User != "":
		return Choice{GRPC, ReasonAuth}
	case asked == GRPC:
		return Choice{GRPC, ReasonAsked}
	case asked == Wire:
		return Choice{Wire, ReasonAsked}
	}
	return Choice{Wire, ReasonDefault}
}
