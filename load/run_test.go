package load

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
)

func localCluster(t *testing.T, members int) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Start(context.Background(), cluster.Options{Members: members, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

// runner runs a put workload on one engine over 2 connections.
type runner func(t *testing.T, w Put, spec Spec) result.Run

// engines returns both engines bound to cluster c.
func engines(c *cluster.Cluster) map[string]runner {
	return map[string]runner{
		"grpc": func(t *testing.T, w Put, spec Spec) result.Run {
			pool, err := Dial(context.Background(), c.Client(), c.Endpoints(), 2)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			run, err := Run(context.Background(), pool, w, spec)
			if err != nil {
				t.Fatal(err)
			}
			return run
		},
		"wire": func(t *testing.T, w Put, spec Spec) result.Run {
			pool, err := DialWire(context.Background(), c.Client(), c.Endpoints(), 2, w, spec.RequestTimeout)
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			run, err := RunWire(context.Background(), pool, w, spec)
			if err != nil {
				t.Fatal(err)
			}
			return run
		},
	}
}

func putLoad(prefix string, space int64) Put {
	return Put{Keys: Keys{Prefix: prefix, Size: 8, Space: space, Sequential: true}, Value: RandomValue(64)}
}

func countKeys(t *testing.T, c *cluster.Cluster, prefix string) int64 {
	t.Helper()
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, prefix, clientv3WithPrefixCount()...)
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

// TestClosedLoopPutsEveryKey writes a known number of sequential keys and
// counts them on the server.
func TestClosedLoopPutsEveryKey(t *testing.T) {
	t.Parallel()
	c := localCluster(t, 1)
	for name, run := range engines(c) {
		prefix := "/" + name + "/"
		r := run(t, putLoad(prefix, 500), Spec{Clients: 8, Total: 500, RequestTimeout: 5 * time.Second})
		if r.Requests != 500 || len(r.Errors) != 0 || r.Latency.P50 <= 0 || r.ThroughputRPS <= 0 || r.ServiceTime != nil {
			t.Fatalf("%s: %+v", name, r.Stats)
		}
		if n := countKeys(t, c, prefix); n != 500 {
			t.Fatalf("%s: server holds %d keys, want 500", name, n)
		}
	}
}

// TestOpenLoopCountsStalls pauses the only member for 600 ms during an
// open-loop run: requests due during the stall must carry the wait in their
// latency (measured from the intended time). A closed loop with one client
// hides the same stall in a single request.
func TestOpenLoopCountsStalls(t *testing.T) {
	t.Parallel()
	c := localCluster(t, 1)
	stall := func() {
		time.Sleep(400 * time.Millisecond)
		_ = c.Pause("m1")
		time.Sleep(600 * time.Millisecond)
		_ = c.Resume("m1")
	}
	for name, run := range engines(c) {
		go stall()
		open := run(t, putLoad("/o/", 1000), Spec{Clients: 50, Rate: 200, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
		go stall()
		closed := run(t, putLoad("/c/", 1000), Spec{Clients: 1, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
		t.Logf("%s open: p50 %.4f p90 %.4f max %.4f; closed: p90 %.4f max %.4f", name,
			open.Latency.P50, open.Latency.P90, open.Latency.Max, closed.Latency.P90, closed.Latency.Max)
		// About 120 of ~400 requests were due during the stall.
		if open.Latency.P90 < 0.2 || open.Latency.Max < 0.5 || open.ServiceTime == nil {
			t.Errorf("%s: open loop hid the stall: %+v", name, open.Latency)
		}
		if closed.Latency.Max < 0.5 || closed.Latency.P90 > 0.1 {
			t.Errorf("%s: closed loop: expected the stall in one request only: %+v", name, closed.Latency)
		}
	}
}

// TestOpenLoopBacklog: with one client and a rate it cannot keep up with,
// ticks wait in the backlog and their latency grows with the wait.
func TestOpenLoopBacklog(t *testing.T) {
	t.Parallel()
	c := localCluster(t, 1)
	run := engines(c)["wire"]
	r := run(t, putLoad("/b/", 100), Spec{Clients: 1, Rate: 20000, Total: 300, RequestTimeout: 5 * time.Second})
	if r.Requests != 300 || r.ServiceTime == nil || r.Latency.P99 < 5*r.ServiceTime.P99 {
		t.Fatalf("backlog not counted: latency %+v service %+v", r.Latency, r.ServiceTime)
	}
}

// TestRequestTimeout sends to a paused member: every request ends as a
// DeadlineExceeded error within the timeout, never a hang.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	c := localCluster(t, 1)
	for name, run := range engines(c) {
		if err := c.Pause("m1"); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		r := run(t, putLoad("/x/", 10), Spec{Clients: 2, Total: 4, RequestTimeout: 200 * time.Millisecond})
		_ = c.Resume("m1")
		if r.Errors["DeadlineExceeded"] != 4 || r.Requests != 0 {
			t.Fatalf("%s: want 4 DeadlineExceeded, got %+v %v", name, r.Errors, r.ErrorMessages)
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Fatalf("%s: took %v", name, took)
		}
		time.Sleep(300 * time.Millisecond) // let the member settle
	}
}

// TestWireRecoversAfterRestart kills the member during a run: requests
// fail with Unavailable while it is down, and succeed again once it is back.
func TestWireRecoversAfterRestart(t *testing.T) {
	t.Parallel()
	c := localCluster(t, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		_ = c.Kill("m1")
		time.Sleep(300 * time.Millisecond)
		_ = c.Restart("m1")
	}()
	r := engines(c)["wire"](t, putLoad("/r/", 1000), Spec{Clients: 4, Duration: 4 * time.Second, RequestTimeout: time.Second})
	if r.Errors["Unavailable"] == 0 {
		t.Fatalf("no Unavailable errors while the member was down: %v", r.Errors)
	}
	last := r.TimeSeries[len(r.TimeSeries)-1]
	if last.Requests == 0 {
		t.Fatalf("no successful request after the restart: %+v", r.TimeSeries)
	}
}

// TestUnreachable: the gRPC engine counts errors; the wire engine refuses to
// start without any connection.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	pool, err := Dial(context.Background(), etcdclient.Config{}, []string{"127.0.0.1:1"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	r, err := Run(context.Background(), pool, putLoad("/u/", 10), Spec{Clients: 1, Total: 3, RequestTimeout: time.Second})
	if err != nil || r.Errors["Unavailable"] != 3 {
		t.Fatalf("errors %v %v", r.Errors, err)
	}
	if _, err := DialWire(context.Background(), etcdclient.Config{DialTimeout: time.Second}, []string{"127.0.0.1:1"}, 1, putLoad("/u/", 10), time.Second); err == nil {
		t.Fatal("DialWire to a closed port succeeded")
	}
}
