package wire_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/load/wire"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// h2server is a real HTTP/2 server (golang.org/x/net/http2, cleartext,
// prior knowledge) that allows limit concurrent streams and answers every
// request as a gRPC server would: an empty message and grpc-status 0 in
// the trailers. It counts the streams its handlers see at once.
type h2server struct {
	addr             string
	cur, peak, calls atomic.Int32
}

// startH2 starts the server; before, if set, runs in each handler after
// counting and before answering.
func startH2(t *testing.T, limit uint32, before func(*h2server, *http.Request)) *h2server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	s := &h2server{addr: ln.Addr().String()}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.calls.Add(1)
		n := s.cur.Add(1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		if before != nil {
			before(s, r)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		s.cur.Add(-1)
		if r.Context().Err() != nil {
			return // reset by the client
		}
		w.Header().Set("Content-Type", "application/grpc")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte{0, 0, 0, 0, 0})
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	})
	// net/http's own HTTP/2 server, cleartext with prior knowledge (what
	// wire speaks to a plain-text etcd).
	srv := &http.Server{Handler: h, Protocols: new(http.Protocols), HTTP2: &http.HTTP2Config{MaxConcurrentStreams: int(limit)}}
	srv.Protocols.SetUnencryptedHTTP2(true)
	go func() { _ = srv.Serve(ln) }()
	return s
}

func dialH2(t *testing.T, addr string) *wire.Conn {
	t.Helper()
	conn, err := wire.Dial(context.Background(), wire.Options{Address: addr, Methods: methods})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestMaxConcurrentStreams sends more calls at once than the server allows
// streams: the server never sees more than its limit open, sees exactly
// its limit at some point (the first handlers wait for it), and every call
// completes.
func TestMaxConcurrentStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit uint32
		calls int
	}{{1, 10}, {3, 60}, {16, 200}} {
		full := make(chan struct{})
		var once sync.Once
		s := startH2(t, tc.limit, func(s *h2server, r *http.Request) {
			if s.cur.Load() >= int32(tc.limit) {
				once.Do(func() { close(full) })
			}
			select { // every handler waits until the limit was reached once
			case <-full:
			case <-r.Context().Done():
			}
		})
		conn := dialH2(t, s.addr)
		res := make(results, tc.calls)
		dl := in(20 * time.Second)
		for i := range tc.calls {
			if err := conn.Call(methodPut, put("/s/", i, nil), dl, res.cb(i)); err != nil {
				t.Fatal(err)
			}
		}
		for id, err := range res.wait(t, tc.calls, 30*time.Second) {
			if err != nil {
				t.Errorf("limit %d: call %d: %v", tc.limit, id, err)
			}
		}
		if p, n := s.peak.Load(), s.calls.Load(); p != int32(tc.limit) || n != int32(tc.calls) {
			t.Errorf("limit %d: the server saw at most %d streams at once and %d calls; want %d and %d", tc.limit, p, n, tc.limit, tc.calls)
		}
	}
}

// TestQueuedCallDeadline holds the server's only two streams: the calls
// waiting behind them end DeadlineExceeded without ever reaching the
// server, the held ones are reset, and the connection goes on working.
func TestQueuedCallDeadline(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	s := startH2(t, 2, func(_ *h2server, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	conn := dialH2(t, s.addr)
	res := make(results, 10)
	dl := in(300 * time.Millisecond) // one deadline: calls are sent in deadline order
	for i := range 5 {
		if err := conn.Call(methodPut, put("/q/", i, nil), dl, res.cb(i)); err != nil {
			t.Fatal(err)
		}
	}
	for id, err := range res.wait(t, 5, 10*time.Second) {
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("call %d: %v, want DeadlineExceeded", id, err)
		}
	}
	if n := s.calls.Load(); n != 2 {
		t.Errorf("the server saw %d calls, want only the 2 that had streams", n)
	}
	close(release)
	for i := 5; i < 8; i++ {
		if err := conn.Call(methodRange, msg{&pb.RangeRequest{Key: []byte("k")}}, in(10*time.Second), res.cb(i)); err != nil {
			t.Fatal(err)
		}
	}
	for id, err := range res.wait(t, 3, 10*time.Second) {
		if err != nil {
			t.Errorf("call %d after the reset streams: %v", id, err)
		}
	}
	if p := s.peak.Load(); p > 2 {
		t.Errorf("the server saw %d streams at once, allows 2", p)
	}
}
