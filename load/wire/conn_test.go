package wire_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/load/wire"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

var methods = []string{"/etcdserverpb.KV/Put", "/etcdserverpb.KV/Range"}

const methodPut, methodRange = 0, 1

// put returns the request writing key+seq with value.
func put(key string, seq int, value []byte) wire.Message {
	return msg{&pb.PutRequest{Key: []byte(key + string(rune('a'+seq%26))), Value: value}}
}

// msg is an etcd API request as a wire.Message.
type msg struct{ m proto.Message }

func (p msg) Size() int { return proto.Size(p.m) }

func (p msg) MarshalToSizedBuffer(b []byte) (int, error) {
	out, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b[:0], p.m)
	return len(out), err
}

// outcome is one call's end.
type outcome struct {
	id  int
	err error
}

// results collects outcomes by call id.
type results chan outcome

// cb returns the callback of call id.
func (r results) cb(id int) wire.Callback { return callback{id, r} }

type callback struct {
	id int
	r  results
}

func (c callback) Done(err error) { c.r <- outcome{c.id, err} }

func (r results) wait(t *testing.T, n int, within time.Duration) map[int]error {
	t.Helper()
	out := map[int]error{}
	deadline := time.After(within)
	for len(out) < n {
		select {
		case v := <-r:
			out[v.id] = v.err
		case <-deadline:
			t.Fatalf("only %d of %d calls completed within %v", len(out), n, within)
		}
	}
	return out
}

func in(d time.Duration) time.Time { return time.Now().Add(d) }

func start(t *testing.T, o cluster.Options) (*clustertest.Cluster, wire.Options) {
	t.Helper()
	o.Members = 1
	c := clustertest.Start(t, o)
	cc := c.Client()
	tlsCfg, err := cc.TLS()
	if err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(strings.TrimPrefix(cc.Endpoints[0], "http://"), "https://")
	return c, wire.Options{Address: addr, TLS: tlsCfg, Methods: methods}
}

// TestCallsFlowControlAndStatus sends many large values concurrently (each
// bigger than a frame and the server's initial window, so flow control is
// exercised), checks them on the server, and checks that a server error
// arrives as its gRPC status.
func TestCallsFlowControlAndStatus(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		c, o := start(t, cluster.Options{TLS: secure})
		conn, err := wire.Dial(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		big := bytes.Repeat([]byte("v"), 200<<10)
		res := make(results, 100)
		for i := range 20 {
			if err := conn.Call(methodPut, put("/big/", i, big), in(5*time.Second), res.cb(i)); err != nil {
				t.Fatal(err)
			}
		}
		for op, err := range res.wait(t, 20, 20*time.Second) {
			if err != nil {
				t.Fatalf("tls=%v call %d: %v", secure, op, err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := c.KV().Get(ctx, "/big/t")
		cancel()
		if err != nil || len(r.Kvs) != 1 || !bytes.Equal(r.Kvs[0].Value, big) {
			t.Fatalf("stored value wrong: %v", err)
		}
		// A range without a key is refused by etcd with InvalidArgument.
		if err := conn.Call(methodRange, msg{&pb.RangeRequest{}}, in(5*time.Second), res.cb(101)); err != nil {
			t.Fatal(err)
		}
		got := res.wait(t, 1, 5*time.Second)
		if status.Code(got[101]) != codes.InvalidArgument || !strings.Contains(got[101].Error(), "key is not provided") {
			t.Fatalf("empty range key: %v", got[101])
		}
		conn.Close()
	}
}

// TestDeadlineAndConnectionLoss: a paused member makes calls time out; a
// killed member breaks the connection and every call in flight ends with
// Unavailable; Call then fails at once.
func TestDeadlineAndConnectionLoss(t *testing.T) {
	t.Parallel()
	c, o := start(t, cluster.Options{})
	conn, err := wire.Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := c.Pause("m1"); err != nil {
		t.Fatal(err)
	}
	res := make(results, 10)
	began := time.Now()
	for i := range 3 {
		if err := conn.Call(methodPut, put("/d/", i, nil), in(300*time.Millisecond), res.cb(i)); err != nil {
			t.Fatal(err)
		}
	}
	for op, err := range res.wait(t, 3, 3*time.Second) {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d: %v", op, err)
		}
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("deadline took %v", took)
	}
	for i := 3; i < 6; i++ {
		if err := conn.Call(methodPut, put("/d/", i, nil), in(300*time.Millisecond), res.cb(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Kill("m1"); err != nil {
		t.Fatal(err)
	}
	for op, err := range res.wait(t, 3, 5*time.Second) {
		if status.Code(err) != codes.Unavailable && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("call %d after kill: %v", op, err)
		}
	}
	clustertest.Eventually(2*time.Second, func() bool { return conn.Err() != nil })
	if err := conn.Call(methodPut, put("/d/", 9, nil), in(time.Second), res.cb(9)); status.Code(err) != codes.Unavailable {
		t.Fatalf("call on a broken connection: %v", err)
	}
}

func TestDialErrors(t *testing.T) {
	t.Parallel()
	// A server that accepts and says nothing is not an HTTP/2 server.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:1", "connection refused"},
		{ln.Addr().String(), "sent no HTTP/2 settings"},
	} {
		_, err := wire.Dial(context.Background(), wire.Options{Address: tc.addr, Methods: methods, DialTimeout: 500 * time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dial %s: %v, want %q", tc.addr, err, tc.want)
		}
	}
}
