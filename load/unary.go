package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load/wire"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// ErrUnaryNeedsGRPC says a UnaryConn cannot serve the connection: it
// authenticates as a user, and wire sends no auth token.
var ErrUnaryNeedsGRPC = errors.New("the wire transport sends no auth token")

// unaryTimeout bounds a call whose context has no deadline.
const unaryTimeout = 30 * time.Second

// UnaryConn makes etcd's unary KV calls (Range, Put, Txn) over the load
// engine's wire transport, one connection per endpoint, for workloads that
// build their requests with etcd's own client: pass its KV() to
// (see KV) and clientv3.NewKVFromKVClient, and the requests on the wire are
// clientv3's, without gRPC-go's per-call machinery (a stream object,
// header encoding, a goroutine hand-off each way), which is most of a
// client's CPU on small calls. Calls go round robin to the connections
// that work; a broken connection is redialled in the background as for a
// load run. Streams are not supported. Safe for concurrent use.
type UnaryConn struct {
	t *wireTransport
}

var _ grpc.ClientConnInterface = (*UnaryConn)(nil)

// DialUnary connects to every endpoint of cfg. It fails if none answers,
// and with ErrUnaryNeedsGRPC when cfg authenticates as a user.
func DialUnary(ctx context.Context, cfg etcdclient.Config) (*UnaryConn, error) {
	if cfg.User != "" {
		return nil, ErrUnaryNeedsGRPC
	}
	if len(cfg.Endpoints) == 0 {
		return nil, errors.New("no endpoints")
	}
	t, err := dialWire(ctx, cfg, cfg.Endpoints, len(cfg.Endpoints), false)
	if err != nil {
		return nil, err
	}
	return &UnaryConn{t: t}, nil
}

// unaryMethod maps a method a UnaryConn calls to its Method (wire's index).
func unaryMethod(name string) (Method, bool) {
	for _, m := range []Method{MethodRange, MethodPut, MethodTxn} {
		if methods[m].name == name {
			return m, true
		}
	}
	return 0, false
}

// Invoke makes one unary call and decodes its reply. A call that could not
// be started on a connection (it broke) reached no server and is tried on
// the next live one.
func (u *UnaryConn) Invoke(ctx context.Context, method string, args, reply any, _ ...grpc.CallOption) error {
	m, ok := unaryMethod(method)
	if !ok {
		return status.Error(codes.Unimplemented, "etcdlab's unary transport does not call "+method)
	}
	in, ok := args.(proto.Message)
	if !ok {
		return status.Error(codes.Internal, fmt.Sprintf("request %T is not an etcd API message", args))
	}
	msg := asMessage(in)
	out, ok := reply.(proto.Message)
	if !ok {
		return status.Error(codes.Internal, fmt.Sprintf("reply %T is not an etcd API message", reply))
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(unaryTimeout)
	}
	w := &unaryCall{done: make(chan struct{})}
	if err := u.start(int(m), msg, deadline, w); err != nil {
		return err
	}
	select {
	case <-w.done:
	case <-ctx.Done():
		// The call ends by its deadline; its reply, if any, is dropped.
		return status.FromContextError(ctx.Err()).Err()
	}
	if w.err != nil {
		return w.err
	}
	if err := proto.Unmarshal(w.resp, out); err != nil {
		return status.Error(codes.Internal, "decode the reply: "+err.Error())
	}
	return nil
}

// start sends the call on the next live connection.
func (u *UnaryConn) start(method int, msg wire.Message, deadline time.Time, w *unaryCall) error {
	t := u.t
	last := status.Error(codes.Unavailable, "no connection")
	for range len(t.slots) {
		s := t.live(-1)
		if s == nil {
			break
		}
		conn := s.conn.Load()
		if conn == nil {
			continue
		}
		err := conn.Call(method, msg, deadline, w)
		if err == nil {
			return nil
		}
		if conn.Err() == nil && status.Code(err) != codes.Unavailable {
			return err // the request itself could not be sent
		}
		s.retire(conn)
		last = err
	}
	for _, s := range t.slots {
		if s.conn.Load() == nil {
			return s.unavailable()
		}
	}
	return last
}

// NewStream is not supported: watches and lease keep-alives go through
// gRPC-go.
func (u *UnaryConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, status.Error(codes.Unimplemented, "etcdlab's unary transport sends no streams")
}

// Close closes the connections; calls in flight end with an error.
func (u *UnaryConn) Close() { u.t.close() }

// unaryCall waits for one call's outcome.
type unaryCall struct {
	done chan struct{}
	resp []byte
	err  error
}

func (w *unaryCall) Receive(msg []byte) { w.resp = append([]byte(nil), msg...) }
func (w *unaryCall) Done(err error)     { w.err = err; close(w.done) }

// KV returns etcd's KV service on the connection, for
// clientv3.NewKVFromKVClient. DeleteRange, Compact and RangeStream are not
// supported (they fail with Unimplemented).
func (u *UnaryConn) KV() pb.KVClient { return unaryKV{u} }

// unaryKV is pb.KVClient on a UnaryConn (etcd's generated constructor
// takes only a *grpc.ClientConn).
type unaryKV struct{ c grpc.ClientConnInterface }

func (k unaryKV) Range(ctx context.Context, in *pb.RangeRequest, opts ...grpc.CallOption) (*pb.RangeResponse, error) {
	out := new(pb.RangeResponse)
	return out, k.c.Invoke(ctx, "/etcdserverpb.KV/Range", in, out, opts...)
}

func (k unaryKV) Put(ctx context.Context, in *pb.PutRequest, opts ...grpc.CallOption) (*pb.PutResponse, error) {
	out := new(pb.PutResponse)
	return out, k.c.Invoke(ctx, "/etcdserverpb.KV/Put", in, out, opts...)
}

func (k unaryKV) DeleteRange(ctx context.Context, in *pb.DeleteRangeRequest, opts ...grpc.CallOption) (*pb.DeleteRangeResponse, error) {
	out := new(pb.DeleteRangeResponse)
	return out, k.c.Invoke(ctx, "/etcdserverpb.KV/DeleteRange", in, out, opts...)
}

func (k unaryKV) Txn(ctx context.Context, in *pb.TxnRequest, opts ...grpc.CallOption) (*pb.TxnResponse, error) {
	out := new(pb.TxnResponse)
	return out, k.c.Invoke(ctx, "/etcdserverpb.KV/Txn", in, out, opts...)
}

func (k unaryKV) Compact(ctx context.Context, in *pb.CompactionRequest, opts ...grpc.CallOption) (*pb.CompactionResponse, error) {
	out := new(pb.CompactionResponse)
	return out, k.c.Invoke(ctx, "/etcdserverpb.KV/Compact", in, out, opts...)
}

// RangeStream is not supported: a UnaryConn sends no streams.
func (unaryKV) RangeStream(context.Context, *pb.RangeRequest, ...grpc.CallOption) (pb.KV_RangeStreamClient, error) {
	return nil, status.Error(codes.Unimplemented, "etcdlab's unary transport sends no streams")
}
