package series

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// local starts a real 3-member cluster and returns it with the recorder
// options etcdlab uses for its own clusters.
func local(t *testing.T) (*cluster.Cluster, Options) {
	t.Helper()
	c := clustertest.Start(t, cluster.Options{Members: 3}).Cluster
	return c, Options{URLs: c.State().MetricsURLs, Names: c.Names(), Interval: 500 * time.Millisecond,
		Processes: func() []proc.ID {
			var ids []proc.ID
			for _, m := range c.State().Members {
				ids = append(ids, m.Process())
			}
			return ids
		}}
}

// writes puts keys until ctx ends; the function it returns waits for the
// writers and says how many puts succeeded.
func writes(ctx context.Context, t *testing.T, c *cluster.Cluster) func() int {
	t.Helper()
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for w := range 2 { // paced, about 100 puts a second in all: the members keep CPU to answer scrapes
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				time.Sleep(20 * time.Millisecond)
				rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				_, err := cli.Put(rctx, fmt.Sprintf("/series/%d/%d", w, i), strings.Repeat("v", 256))
				cancel()
				if err == nil {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}
		}()
	}
	return func() int {
		wg.Wait()
		cli.Close()
		return n
	}
}

// TestRecorderLocalCluster records 4 s of writes on a real 3-member
// cluster: every member has its series, fsyncs, CPU, disk writes from
// /proc, and one point per interval.
func TestRecorderLocalCluster(t *testing.T) {
	c, o := local(t) // not parallel: three clusters at once starve two cores
	o.Interval = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	done := writes(ctx, t, c)
	<-ctx.Done()
	stopped := time.Now()
	srv := r.Stop()
	if d := time.Since(stopped); d > 4*time.Second { // the timeout (2 s) for a scrape under way and one for the last
		t.Errorf("Stop took %s", d)
	}
	if n := done(); n < 20 { // under the race detector a member manages about 10 a second
		t.Fatalf("only %d writes", n)
	}
	if len(srv.Members) != 3 || srv.IntervalSeconds != 1 || srv.Downsampled || srv.EtcdVersion != version.Etcd() {
		t.Fatalf("server: %d members, interval %g, downsampled %v, version %q", len(srv.Members), srv.IntervalSeconds, srv.Downsampled, srv.EtcdVersion)
	}
	leaders, requests := 0, 0.0
	tmpfs := strings.Contains(envinfo.Filesystem(c.DataDir()), "tmpfs")
	for i, m := range srv.Members {
		s := m.Summary
		if m.Name != c.Names()[i] || m.MetricsURL != o.URLs[i] || !answered(m) {
			t.Errorf("member %d: %s %s, %d scrape errors (%s)", i, m.Name, m.MetricsURL, m.ScrapeErrors, m.FirstError)
		}
		// 4 s at 1 s: 4 intervals, give or take the last one.
		if int64(len(m.Points)) < 3-m.ScrapeErrors || len(m.Points) > 5 {
			t.Errorf("%s: %d points over 4 s at 1 s", m.Name, len(m.Points))
		}
		if s.WALFsyncs < 20 || s.WALFsyncP99 <= 0 || s.BackendCommitP99 <= 0 || s.CPUCoresMean <= 0 || s.CPUCoresMax < s.CPUCoresMean ||
			s.RSSMaxBytes < 1<<20 || s.DBSizeBytes <= 0 || s.NetReceiveBytes <= 0 || s.NetSendBytes <= 0 {
			t.Errorf("%s: summary %+v", m.Name, s)
		}
		if !tmpfs && s.DiskWriteBytes <= 0 {
			t.Errorf("%s: no disk writes in /proc/PID/io on %s", m.Name, c.DataDir())
		}
		last := m.Points[len(m.Points)-1]
		if !last.HasLeader {
			t.Errorf("%s: no leader at the end", m.Name)
		}
		if last.IsLeader {
			leaders++
		}
		requests += s.GRPCRequests
	}
	if leaders != 1 || requests < 20 {
		t.Errorf("%d leaders, %g unary requests served", leaders, requests)
	}
}

// TestRecorderMemberKilled kills a member mid-run and restarts it: its
// scrapes fail (counted, the first error kept), the others' series go on
// without a gap, Stop still returns promptly, and once the member is back
// its series resumes (its counters, from zero again, never make a figure
// negative).
func TestRecorderMemberKilled(t *testing.T) {
	// Not parallel: three clusters at once starve two cores. A timeout
	// healthy members meet even under the race detector.
	c, o := local(t)
	o.Interval, o.Timeout = time.Second, 3*time.Second
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := writes(ctx, t, c)
	time.Sleep(time.Second)
	if err := c.Kill("m3"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := c.Restart("m3"); err != nil {
		t.Fatal(err)
	}
	back := waitMetrics(t, o.URLs[2], 30*time.Second)
	time.Sleep(3 * time.Second) // a few intervals with m3 back
	cancel()
	stopped := time.Now()
	srv := r.Stop()
	if d := time.Since(stopped); d > 2*o.Timeout {
		t.Errorf("Stop took %s", d)
	}
	done()
	for _, m := range srv.Members {
		for _, p := range m.Points {
			if p.CPUCores < 0 || p.GRPCPerSecond < 0 || p.DiskWriteBytesPerS < 0 || p.NetSendPerS < 0 || p.LeaderChanges < 0 {
				t.Errorf("%s: a negative figure at %d: %+v", m.Name, p.UnixMillis, p)
			}
		}
		after := 0 // points closed once m3 was back
		for _, p := range m.Points {
			if p.UnixMillis > back.UnixMilli() {
				after++
			}
		}
		if m.Name != "m3" {
			// The series went on through the kill: points before and after.
			if !answered(m) || after < 1 || len(m.Points)-after < 1 {
				t.Errorf("%s: %d scrape errors (%s), %d points, %d after m3 was back", m.Name, m.ScrapeErrors, m.FirstError, len(m.Points), after)
			}
			continue
		}
		if m.ScrapeErrors < 1 || !down(m.FirstError) {
			t.Errorf("m3: %d scrape errors, first %q", m.ScrapeErrors, m.FirstError)
		}
		if after < 1 {
			t.Errorf("m3: %d points after its restart", after)
		}
	}
}

// waitMetrics waits until url serves metrics, and returns when it did.
func waitMetrics(t *testing.T, url string, timeout time.Duration) time.Time {
	t.Helper()
	sc := metrics.NewScraper(nil, nil, nil)
	defer sc.Close()
	deadline := time.Now().Add(timeout)
	for {
		_, err := sc.Scrape(context.Background(), url, time.Second)
		if err == nil {
			return time.Now()
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not serve metrics after %s: %v", url, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answered reports whether a live member's scrapes succeeded, but for
// timeouts: on this shared 2-core machine, under the race detector, a
// member starved of CPU can answer /metrics later than the deadline.
func answered(m result.MemberSeries) bool {
	return m.ScrapeErrors == 0 || strings.Contains(m.FirstError, "deadline exceeded")
}

// down reports whether a scrape error is a member's death: refused, or
// cut off mid-response when the kill fell during a scrape.
func down(err string) bool {
	return strings.Contains(err, "connection refused") || strings.Contains(err, "EOF") || strings.Contains(err, "connection reset")
}

// TestRecorderPausedMember: a member that stops answering (SIGSTOP) makes
// scrapes time out; they are counted and Stop returns within the timeout.
func TestRecorderPausedMember(t *testing.T) {
	c, o := local(t) // not parallel: three clusters at once starve two cores
	o.Interval, o.Timeout = time.Second, 1500*time.Millisecond
	r, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Pause("m2"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Resume("m2") }()
	time.Sleep(3 * time.Second)
	stopped := time.Now()
	srv := r.Stop()
	if d := time.Since(stopped); d > 2*o.Timeout { // a scrape under way; none after it failed, but the healthy members' last
		t.Errorf("Stop took %s with a paused member (timeout %s)", d, o.Timeout)
	}
	m2 := srv.Members[1]
	if m2.ScrapeErrors < 2 || !strings.Contains(m2.FirstError, "deadline exceeded") {
		t.Errorf("m2: %d scrape errors, first %q", m2.ScrapeErrors, m2.FirstError)
	}
	if m1 := srv.Members[0]; !answered(m1) || int64(len(m1.Points)) < 2-m1.ScrapeErrors {
		t.Errorf("m1: %d errors, %d points", srv.Members[0].ScrapeErrors, len(srv.Members[0].Points))
	}
}

// TestStartInvalid: options that cannot run are invalid-input errors
// naming the field.
func TestStartInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o     Options
		param string
	}{
		{Options{Interval: time.Second}, "URLs"},
		{Options{URLs: []string{"127.0.0.1:2379"}, Interval: time.Second}, "URLs"},
		{Options{URLs: []string{"http://127.0.0.1:1"}, Interval: 10 * time.Millisecond}, "Interval"},
	} {
		_, err := Start(context.Background(), tc.o)
		if !invalid.Is(err) || len(invalid.As(err).Params()) != 1 || invalid.As(err).Params()[0] != tc.param {
			t.Errorf("%+v: %v", tc.o, err)
		}
	}
}

// TestUnreachable: members that never answer give a series of errors, not
// a hang: Start returns after the baseline's timeout at most.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	began := time.Now()
	r, err := Start(context.Background(), Options{URLs: []string{"http://127.0.0.1:1"}, Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	srv := r.Stop()
	if d := time.Since(began); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	m := srv.Members[0]
	if m.Name != "127.0.0.1:1" || m.ScrapeErrors < 3 || len(m.Points) != 0 || !reflect.DeepEqual(m.Summary, result.ServerSummary{}) {
		t.Errorf("%+v", m)
	}
}
