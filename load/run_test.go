package load

import (
	"context"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/cluster"
	"github.com/etcdlab/etcdlab/etcdclient"
)

func localCluster(t *testing.T, members int) (*cluster.Cluster, Pool) {
	t.Helper()
	c, err := cluster.Start(context.Background(), cluster.Options{Members: members, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	pool, err := Dial(context.Background(), c.Client(), c.Endpoints(), 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return c, pool
}

func putLoad(prefix string, space int64) Put {
	return Put{Keys: Keys{Prefix: prefix, Size: 8, Space: space, Sequential: true}, Value: RandomValue(64)}
}

// TestClosedLoopPutsEveryKey writes a known number of sequential keys and
// counts them on the server.
func TestClosedLoopPutsEveryKey(t *testing.T) {
	t.Parallel()
	c, pool := localCluster(t, 1)
	run, err := Run(context.Background(), pool, putLoad("/t/", 500), Spec{Clients: 8, Total: 500, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if run.Requests != 500 || len(run.Errors) != 0 || run.Latency.P50 <= 0 || run.ThroughputRPS <= 0 {
		t.Fatalf("run: %+v", run.Stats)
	}
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, "/t/", clientv3WithPrefixCount()...)
	if err != nil || r.Count != 500 {
		t.Fatalf("server holds %v keys (%v), want 500", r.Count, err)
	}
}

// TestOpenLoopCountsStalls pauses the only member for 600 ms during an
// open-loop run: requests due during the stall must carry the wait in their
// latency (measured from the intended time) but not in their service time.
// A closed loop with one client hides the same stall in a single request.
func TestOpenLoopCountsStalls(t *testing.T) {
	t.Parallel()
	c, pool := localCluster(t, 1)
	stall := func() {
		time.Sleep(400 * time.Millisecond)
		_ = c.Pause("m1")
		time.Sleep(600 * time.Millisecond)
		_ = c.Resume("m1")
	}
	go stall()
	open, err := Run(context.Background(), pool, putLoad("/o/", 1000), Spec{Clients: 50, Rate: 200, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	go stall()
	closed, err := Run(context.Background(), pool, putLoad("/c/", 1000), Spec{Clients: 1, Duration: 2 * time.Second, RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("open: p50 %.4f p90 %.4f p99 %.4f max %.4f (service p90 %.4f); closed: p50 %.4f p90 %.4f p99 %.4f max %.4f",
		open.Latency.P50, open.Latency.P90, open.Latency.P99, open.Latency.Max, open.ServiceTime.P90,
		closed.Latency.P50, closed.Latency.P90, closed.Latency.P99, closed.Latency.Max)
	// About 120 of ~400 requests were due during the stall.
	if open.Latency.P90 < 0.2 || open.Latency.Max < 0.5 {
		t.Errorf("open loop hid the stall: p90 %.3fs max %.3fs", open.Latency.P90, open.Latency.Max)
	}
	if open.ServiceTime == nil || open.ServiceTime.P50 > 0.1 {
		t.Errorf("service time should stay low at p50: %+v", open.ServiceTime)
	}
	if closed.Latency.Max < 0.5 || closed.Latency.P90 > 0.1 {
		t.Errorf("closed loop: expected the stall in one request only: p90 %.3f max %.3f", closed.Latency.P90, closed.Latency.Max)
	}
}

// TestRequestTimeout sends to a paused member: every request must end as a
// DeadlineExceeded error within the timeout, never hang.
func TestRequestTimeout(t *testing.T) {
	t.Parallel()
	c, pool := localCluster(t, 1)
	if err := c.Pause("m1"); err != nil {
		t.Fatal(err)
	}
	defer c.Resume("m1")
	began := time.Now()
	run, err := Run(context.Background(), pool, putLoad("/x/", 10), Spec{Clients: 2, Total: 4, RequestTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if run.Errors["DeadlineExceeded"] != 4 || run.Requests != 0 {
		t.Fatalf("want 4 DeadlineExceeded, got %+v %v", run.Errors, run.ErrorMessages)
	}
	if time.Since(began) > 5*time.Second {
		t.Fatalf("took %v", time.Since(began))
	}
}

// TestUnreachableCountsErrors points the pool at a closed port.
func TestUnreachableCountsErrors(t *testing.T) {
	t.Parallel()
	pool, err := Dial(context.Background(), etcdclient.Config{}, []string{"127.0.0.1:1"}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	run, err := Run(context.Background(), pool, putLoad("/u/", 10), Spec{Clients: 1, Total: 3, RequestTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if run.Errors["Unavailable"] != 3 {
		t.Fatalf("errors %v", run.Errors)
	}
}
