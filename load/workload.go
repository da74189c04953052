package load

import (
	mrand "math/rand/v2"

	"github.com/etcdlab/etcdlab/load/wire"
	"google.golang.org/protobuf/proto"
)

// Workload is a kind of request (put, range, txn...). Its value is
// immutable and shared by every client of every run.
type Workload interface {
	// Ops names the kinds of operation it records; Request.Op indexes it.
	// Most workloads have one.
	Ops() []string
	// Needs says what it asks of the transport and the cluster.
	Needs() Needs
	// NewClient returns the state of one simulated client, which builds
	// that client's requests. A Client is used by one request at a time.
	NewClient(c ClientInfo) Client
}

// Needs is what a workload asks of the transport and the cluster.
type Needs struct {
	// Methods are the methods its requests call. A streaming method is
	// sent by the gRPC-go transport only.
	Methods []Method
	// LeaseTTL, if positive, gives each client a lease with this TTL in
	// seconds (ClientInfo.Lease), granted before a run and revoked after.
	LeaseTTL int64
}

// ClientInfo is what a client's state is made from.
type ClientInfo struct {
	// ID numbers the client from 0.
	ID int
	// Lease is the client's lease when the workload needs one.
	Lease int64
}

// Client builds one simulated client's requests.
type Client interface {
	// Next returns request seq. Its message must stay unchanged until the
	// request has ended: a client has one request in flight at a time, and
	// Next is called again only after it ended.
	Next(seq int64) Request
}

// Request is one request, as a transport sends it.
type Request struct {
	// Method is what it calls.
	Method Method
	// Msg is the request message.
	Msg Message
	// Op is the operation it performs, an index into Workload.Ops.
	Op int
}

// Message is a request message: an etcd API message adapted by asMessage,
// or one marshalled once (encoded).
type Message = wire.Message

// encoded is a message marshalled once, sent as it is by every client: for
// requests that never change. It is immutable.
type encoded struct{ b []byte }

func encode(m proto.Message) *encoded {
	// Marshalling fails only on invalid UTF-8 in a string field, and the
	// requests encoded here (put, range, txn) have none: keys and values
	// are bytes.
	b, _ := proto.Marshal(m)
	return &encoded{b: b}
}

func (e *encoded) Size() int { return len(e.b) }

func (e *encoded) MarshalToSizedBuffer(dst []byte) (int, error) { return copy(dst, e.b), nil }

func newRand(id int) *mrand.Rand {
	return mrand.New(mrand.NewPCG(uint64(id)+1, mrand.Uint64()))
}
