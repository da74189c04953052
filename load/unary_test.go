package load

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestUnaryConn drives clientv3's KV over a UnaryConn on a real 3-member
// TLS cluster: replies are decoded (a big value spans frames; a failed
// Txn returns its Else branch), a call the transport does not make is
// Unimplemented, a context's deadline ends a call against a paused
// member, and calls keep succeeding after a member is killed.
func TestUnaryConn(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{Members: 3, TLS: true})
	u, err := DialUnary(context.Background(), c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	kv := clientv3.NewKVFromKVClient(u.KV(), nil)
	ctx := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		t.Cleanup(cancel)
		return ctx
	}

	big := bytes.Repeat([]byte("v"), 100<<10)
	put, err := kv.Put(ctx(), "/unary/big", string(big))
	if err != nil || put.Header.Revision == 0 {
		t.Fatalf("put: %v (header %v)", err, put.Header)
	}
	got, err := kv.Get(ctx(), "/unary/big")
	if err != nil || len(got.Kvs) != 1 || !bytes.Equal(got.Kvs[0].Value, big) || got.Kvs[0].ModRevision != put.Header.Revision {
		t.Fatalf("get: %v, %d kvs", err, len(got.Kvs))
	}
	txn, err := kv.Txn(ctx()).If(clientv3.Compare(clientv3.ModRevision("/unary/big"), "=", 0)).
		Then(clientv3.OpPut("/unary/big", "lost")).Else(clientv3.OpGet("/unary/big")).Commit()
	if err != nil || txn.Succeeded || len(txn.Responses) != 1 || !bytes.Equal(txn.Responses[0].GetResponseRange().Kvs[0].Value, big) {
		t.Fatalf("txn: %v, succeeded %v", err, txn != nil && txn.Succeeded)
	}
	if _, err := kv.Delete(ctx(), "/unary/big"); status.Code(err) != codes.Unimplemented {
		t.Fatalf("delete: %v, want Unimplemented", err)
	}
	if _, err := kv.Get(ctx(), ""); err == nil || !strings.Contains(err.Error(), "key is not provided") {
		t.Fatalf("a range without a key: %v, want etcd's refusal", err)
	}

	// A paused member: the calls it gets end by their context's deadline.
	names := c.Names()
	if err := c.Pause(names[0]); err != nil {
		t.Fatal(err)
	}
	late := 0
	for range 6 {
		cctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		t0 := time.Now()
		_, err := kv.Get(cctx, "/unary/big", clientv3.WithSerializable())
		cancel()
		if took := time.Since(t0); took > 2*time.Second {
			t.Fatalf("a call took %v past its 300ms deadline", took)
		}
		if status.Code(err) == codes.DeadlineExceeded || errors.Is(err, context.DeadlineExceeded) {
			late++
		}
	}
	if late == 0 {
		t.Fatal("no call reached the paused member in 6 round-robin calls")
	}
	if err := c.Resume(names[0]); err != nil {
		t.Fatal(err)
	}

	// A killed member: its connection breaks and calls go to the others.
	if err := c.Kill(names[1]); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for range 30 {
		if _, err := kv.Get(ctx(), "/unary/big", clientv3.WithSerializable()); err != nil {
			failed++
			if status.Code(err) != codes.Unavailable {
				t.Fatalf("after the kill: %v", err)
			}
		}
	}
	// Calls in flight when the connection broke may fail; later ones not.
	if failed > 1 {
		t.Fatalf("%d of 30 calls failed after a member was killed", failed)
	}
}

// TestDialUnaryRefusesAuth: wire sends no token, so a connection with a
// user is refused with ErrUnaryNeedsGRPC before anything is dialled.
func TestDialUnaryRefusesAuth(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{})
	conf := c.Client()
	conf.User = "root:secret"
	if _, err := DialUnary(context.Background(), conf); !errors.Is(err, ErrUnaryNeedsGRPC) {
		t.Fatalf("got %v, want ErrUnaryNeedsGRPC", err)
	}
	conf.User = ""
	conf.Endpoints = []string{"http://127.0.0.1:1"}
	if _, err := DialUnary(context.Background(), conf); err == nil {
		t.Fatal("dialled a port nobody listens on")
	}
}
