package load

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
)

// oneMember starts a 1-member cluster for the test.
func oneMember(t *testing.T) *clustertest.Cluster {
	return clustertest.Start(t, cluster.Options{})
}

// transports are both transports, each run through the one scheduler.
var transports = []TransportKind{Wire, GRPC}

// runOn runs w on transport tr over 2 connections to cluster c.
func runOn(t *testing.T, c *clustertest.Cluster, tr TransportKind, w Workload, spec Spec) result.Run {
	t.Helper()
	s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 2, Transport: tr}, w)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Transport().Transport; got != tr {
		t.Fatalf("asked for %s, got %s (%s)", tr, got, s.Transport().Reason)
	}
	run, err := s.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return run
}

func putLoad(prefix string, space int64) Put {
	return Put{Keys: Keys{Prefix: prefix, KeySize: 8, KeySpaceSize: space, Sequential: true}, Value: RandomValue(64)}
}

// TestClosedLoopPutsEveryKey writes a known number of sequential keys and
// counts them on the server.
func TestClosedLoopPutsEveryKey(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	for _, tr := range transports {
		prefix := "/" + string(tr) + "/"
		r := runOn(t, c, tr, putLoad(prefix, 500), Spec{Clients: 8, Total: 500, RequestTimeout: 5 * time.Second})
		if r.Requests != 500 || len(r.Errors) != 0 || r.Latency.P50 <= 0 || r.ThroughputRPS <= 0 || r.ServiceTime != nil || r.Conns != 2 || r.Clients != 8 {
			t.Fatalf("%s: %+v", tr, r.Stats)
		}
		if n := c.Count(prefix); n != 500 {
			t.Fatalf("%s: server holds %d keys, want 500", tr, n)
		}
		// The load generator's CPU: something, and no more than the
		// machine has.
		if r.LoadCPUCores <= 0 || r.LoadCPUCores > float64(runtime.NumCPU())+0.5 {
			t.Fatalf("%s: load CPU %.3f cores", tr, r.LoadCPUCores)
		}
	}
}

// TestWorkloads runs every workload once on every transport that can send
// it, the transport picked automatically where only one can.
func TestWorkloads(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	keys := Keys{Prefix: "/w/", KeySize: 8, KeySpaceSize: 1000, Sequential: true}
	for _, tc := range []struct {
		w       Workload
		on      []TransportKind // "" picks automatically
		want    TransportKind
		ops     int   // operations reported separately (0: one)
		written int64 // keys under /w/ afterwards
	}{
		{w: TxnPut{Keys: keys, Value: []byte("v"), OpsPerTxn: 3}, on: transports, written: 300},
		{w: TxnMixed{Keys: keys, Value: []byte("v"), RWRatio: 1, ReadKey: "/w/", ReadEnd: PrefixEnd("/w/"), Limit: 10}, on: transports, ops: 2, written: 300},
		{w: Range{Key: "/w/", End: PrefixEnd("/w/"), Limit: 5}, on: transports, written: 300},
		{w: LeaseKeepalive{TTL: 60}, on: []TransportKind{"", Wire}, want: GRPC, written: 300},
	} {
		for _, tr := range tc.on {
			s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 2, Transport: tr}, tc.w)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want = tr
			}
			name := tc.w.Ops()[0] + " on " + string(want)
			if got := s.Transport().Transport; got != want {
				t.Errorf("%s: transport %s", name, got)
			}
			r, err := s.Run(context.Background(), Spec{Clients: 4, Total: 100, RequestTimeout: 5 * time.Second})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if r.Requests != 100 || len(r.Errors) != 0 || len(r.Ops) != tc.ops {
				t.Errorf("%s: %d requests, errors %v %v, ops %+v", name, r.Requests, r.Errors, r.ErrorMessages, r.Ops)
			}
			if tc.ops == 2 && (r.Ops[0].Requests == 0 || r.Ops[1].Requests == 0 || r.Ops[0].Requests+r.Ops[1].Requests != 100) {
				t.Errorf("%s: read %d, write %d", name, r.Ops[0].Requests, r.Ops[1].Requests)
			}
			if err := s.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
			if n := c.Count("/w/"); n != tc.written {
				t.Errorf("%s: %d keys under /w/, want %d", name, n, tc.written)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if l, err := c.KV().Leases(ctx); err != nil || len(l.Leases) != 0 {
		t.Fatalf("leases left after Close: %v %v", l, err)
	}
}

// TestLeasesFollowClientCount: a session keeps its leases while runs use
// the same client count, and grants a new set when the count changes.
func TestLeasesFollowClientCount(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	cli := c.KV()
	leases := func() int {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		l, err := cli.Leases(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(l.Leases)
	}
	s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 1}, LeaseKeepalive{TTL: 60})
	if err != nil {
		t.Fatal(err)
	}
	for _, clients := range []int{3, 3, 5, 2} {
		r, err := s.Run(context.Background(), Spec{Clients: clients, Total: 20, RequestTimeout: 5 * time.Second})
		if err != nil || r.Requests != 20 {
			t.Fatalf("%d clients: %v %+v", clients, err, r.Errors)
		}
		if n := leases(); n != clients {
			t.Errorf("after a run of %d clients the server holds %d leases", clients, n)
		}
	}
	if err := s.Close(); err != nil || leases() != 0 {
		t.Fatalf("close: %v, %d leases left", err, leases())
	}
}

// TestOpenLoopCountsStalls pauses the only member for 600 ms during an
// open-loop run: requests due during the stall must carry the wait in their
// latency (measured from the intended time). A closed loop with one client
// hides the same stall in a single request.
func TestOpenLoopCountsStalls(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	stall := func() {
		time.Sleep(400 * time.Millisecond)
		_ = c.Pause("m1")
		time.Sleep(600 * time.Millisecond)
		_ = c.Resume("m1")
	}
	for _, tr := range transports {
		go stall()
		open := runOn(t, c, tr, putLoad("/o/", 1000), Spec{Clients: 50, Rate: 200, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
		go stall()
		closed := runOn(t, c, tr, putLoad("/c/", 1000), Spec{Clients: 1, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
		t.Logf("%s open: p50 %.4f p90 %.4f max %.4f; closed: p90 %.4f max %.4f", tr,
			open.Latency.P50, open.Latency.P90, open.Latency.Max, closed.Latency.P90, closed.Latency.Max)
		// About 120 of ~400 requests were due during the stall.
		if open.Latency.P90 < 0.2 || open.Latency.Max < 0.5 || open.ServiceTime == nil {
			t.Errorf("%s: open loop hid the stall: %+v", tr, open.Latency)
		}
		if closed.Latency.Max < 0.5 || closed.Latency.P90 > 0.1 {
			t.Errorf("%s: closed loop: expected the stall in one request only: %+v", tr, closed.Latency)
		}
	}
}

// TestOpenLoopBacklog: with one client and a rate it cannot keep up with,
// ticks wait in the backlog and their latency grows with the wait.
func TestOpenLoopBacklog(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	for _, tr := range transports {
		r := runOn(t, c, tr, putLoad("/b/", 100), Spec{Clients: 1, Rate: 20000, Total: 300, RequestTimeout: 5 * time.Second})
		if r.Requests != 300 || r.ServiceTime == nil || r.Latency.P99 < 5*r.ServiceTime.P99 {
			t.Fatalf("%s: backlog not counted: latency %+v service %+v", tr, r.Latency, r.ServiceTime)
		}
	}
}

// TestRequestTimeout sends to a paused member: every request ends as a
// DeadlineExceeded error within the timeout, never a hang.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	for _, tr := range transports {
		s, err := Open(context.Background(), Options{Conn: c.Client(), Conns: 2, Transport: tr}, putLoad("/x/", 10))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Pause("m1"); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		r, err := s.Run(context.Background(), Spec{Clients: 2, Total: 4, RequestTimeout: 200 * time.Millisecond})
		_ = c.Resume("m1")
		s.Close()
		if err != nil || r.Errors["DeadlineExceeded"] != 4 || r.Requests != 0 {
			t.Fatalf("%s: want 4 DeadlineExceeded, got %v %+v %v", tr, err, r.Errors, r.ErrorMessages)
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Fatalf("%s: took %v", tr, took)
		}
		c.WaitHealthy(10 * time.Second)
	}
}

// TestRecoversAfterRestart kills the member during a run: requests fail
// with Unavailable while it is down, and succeed again once it is back.
func TestRecoversAfterRestart(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	for _, tr := range transports {
		go func() {
			time.Sleep(500 * time.Millisecond)
			_ = c.Kill("m1")
			time.Sleep(300 * time.Millisecond)
			_ = c.Restart("m1")
		}()
		r := runOn(t, c, tr, putLoad("/r/", 1000), Spec{Clients: 4, Duration: 4 * time.Second, RequestTimeout: time.Second})
		if r.Errors["Unavailable"] == 0 {
			t.Fatalf("%s: no Unavailable errors while the member was down: %v", tr, r.Errors)
		}
		if last := r.TimeSeries[len(r.TimeSeries)-1]; last.Requests == 0 {
			t.Fatalf("%s: no successful request after the restart: %+v", tr, r.TimeSeries)
		}
	}
}

// TestAuthRefresh changes the user's password (to the same one) during a
// run on an auth-enabled cluster: etcd invalidates the user's tokens, the
// requests refused for that are sent again with a new token, and none is
// counted as an error.
func TestAuthRefresh(t *testing.T) {
	t.Parallel()
	c := oneMember(t)
	cli := c.KV()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const pw = "pw-9f3"
	for _, step := range []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", pw); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	conn := c.Client()
	conn.User = "root:" + pw
	// Members run from this race-built test binary, where bcrypt (each
	// Authenticate) is many times slower than in etcd; a busy CI machine
	// must not turn that into a connect timeout.
	conn.DialTimeout = 15 * time.Second
	// With a user, the wire transport is not chosen even when asked for.
	s, err := Open(context.Background(), Options{Conn: conn, Conns: 2, Transport: Wire}, putLoad("/a/", 1000))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ch := s.Transport(); ch != (Choice{GRPC, ReasonAuth}) {
		t.Fatalf("transport %+v", ch)
	}
	admin := conn
	admin.Endpoints = c.Endpoints()
	acli, err := etcdclient.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	defer acli.Close()
	changed := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		// Its own deadline: the setup's may be spent by now, and the
		// change hashes the password with bcrypt in the race-built member.
		cctx, ccancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer ccancel()
		_, err := acli.UserChangePassword(cctx, "root", pw)
		changed <- err
	}()
	r, err := s.Run(context.Background(), Spec{Clients: 4, Duration: 1500 * time.Millisecond, RequestTimeout: 5 * time.Second})
	if err := <-changed; err != nil {
		t.Fatal(err)
	}
	if err != nil || r.Requests == 0 || len(r.Errors) != 0 {
		t.Fatalf("%v: %d requests, errors %v %v", err, r.Requests, r.Errors, r.ErrorMessages)
	}
}

// TestUnreachable: the gRPC-go transport connects lazily and counts
// errors; the wire transport refuses to start without any connection.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	o := Options{Conn: etcdclient.Config{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: time.Second}, Conns: 1, Transport: GRPC}
	s, err := Open(context.Background(), o, putLoad("/u/", 10))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, err := s.Run(context.Background(), Spec{Clients: 1, Total: 3, RequestTimeout: time.Second})
	if err != nil || r.Errors["Unavailable"] != 3 {
		t.Fatalf("errors %v %v", r.Errors, err)
	}
	o.Transport = Wire
	if _, err := Open(context.Background(), o, putLoad("/u/", 10)); err == nil {
		t.Fatal("the wire transport started with a closed port")
	}
}
