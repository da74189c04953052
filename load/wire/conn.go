// Package wire sends unary gRPC calls over HTTP/2 asynchronously, for load
// generation. A gRPC-go client spends most of a small call's CPU on
// per-call machinery (a stream object, a goroutine blocked per call,
// retries, header encoding) and holds one goroutine per outstanding call;
// at 50,000 concurrent clients that is a gigabyte. Here a call is a small
// record: frames are written by hand into one batch per connection, header
// blocks are encoded once per method, responses are matched to calls by
// stream ID, and deadlines are swept in send order. HTTP/2 framing and
// HPACK come from golang.org/x/net/http2.
//
// Only what etcd's unary API needs is implemented: no compression, no
// server push, no streaming calls. Response messages are not decoded; a call
// reports its gRPC status, which is all a load generator needs, and hands
// the response's bytes to a callback that is also a Receiver. The
// server's SETTINGS_MAX_CONCURRENT_STREAMS is honoured: calls beyond it wait
// in send order for a stream, their deadline running.
package wire

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Message is a call's request message, marshalled by its own methods
// (wire itself knows no protobuf): MarshalToSizedBuffer is called right
// after Size, with exactly Size() bytes. A message passed to Call must not
// change until its Callback is called: it is marshalled when the call gets
// a stream, which may be later (see Conn).
type Message interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// Callback receives a call's outcome. Done is called exactly once per
// successful Call, from a goroutine of the connection, and must not block;
// it may start another call.
type Callback interface {
	Done(err error)
}

// Receiver is a Callback that wants the response: Receive gets the
// response message's bytes (without gRPC's length prefix) just before
// Done(nil), from the same goroutine. The bytes are only valid during the
// call; Receive must not block.
type Receiver interface {
	Callback
	Receive(msg []byte)
}

// Options configure a connection.
type Options struct {
	// Address is host:port.
	Address string
	// TLS, if set, is used for the connection (ALPN h2 is added).
	TLS *tls.Config
	// Methods are the full method names calls may use, such as
	// "/etcdserverpb.KV/Put"; Call takes an index into it.
	Methods []string
	// DialTimeout bounds connecting, including the HTTP/2 handshake
	// (default 2 s).
	DialTimeout time.Duration
}

// ErrClosed is what calls outstanding on a closed connection end with.
var ErrClosed = status.Error(codes.Unavailable, "connection closed")

const (
	recvWindow     = 1 << 30 // our receive window: the server is never blocked by us
	sweepInterval  = 5 * time.Millisecond
	defaultMaxSend = 16384
)

// Conn is one HTTP/2 connection. Its methods are safe for concurrent use.
//
// A call gets a stream when it is sent if the server allows another
// (SETTINGS_MAX_CONCURRENT_STREAMS); otherwise it waits in a queue, in send
// order, and gets the next stream that ends. Its deadline runs from when
// it was sent, queued or not.
type Conn struct {
	opts    Options
	nc      net.Conn
	headers [][]byte // HPACK block per method

	mu          sync.Mutex
	out         *bytes.Buffer // frames waiting for the writer
	spare       *bytes.Buffer
	scratch     []byte
	wake        chan struct{}
	calls       map[uint32]*call // calls with an open stream
	fifo        []*call          // every call, in send order (= deadline order)
	queue       []*call          // calls waiting for a stream, from qhead on
	qhead       int
	nextID      uint32
	sendWin     int64 // connection-level window the server gave us
	initWin     int64 // server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame    int
	maxStreams  uint32        // server's SETTINGS_MAX_CONCURRENT_STREAMS
	pending     []*call       // calls whose DATA waits for window
	err         error         // set once the connection is broken
	unacked     int64         // DATA bytes received and not yet returned to the server
	idle        bool          // the sweeper waits for armed, not for a deadline
	armed       chan struct{} // wakes the sweeper when a call arrives while it is idle
	settled     chan struct{}
	settledOnce sync.Once
	closed      chan struct{}
	closeOnce   sync.Once
	goAwayAfter uint32
	// receives is set once a call wants its reply (a Receiver); until
	// then DATA frames are not matched to calls.
	receives bool
}

// call is one outstanding call.
type call struct {
	id       uint32 // 0 while it waits for a stream
	cb       Callback
	recv     Receiver // cb, when it wants the response
	resp     []byte   // the response's DATA so far, for recv
	deadline int64    // unix nanos
	done     bool
	method   int     // while it waits for a stream
	msg      Message // while it waits for a stream
	sendWin  int64
	data     []byte // DATA not yet sent (flow control)
	grpcCode int    // -1 until trailers arrive
	grpcMsg  string
	err      error // why it ended, when it ended before its stream did
}

// String describes the connection.
func (c *Conn) String() string { return fmt.Sprintf("wire.Conn(%s)", c.opts.Address) }
