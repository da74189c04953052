package bench

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// TestServerSeriesLocal: a bench against the local 3-member cluster it
// starts records every member's metrics during each measured run (not the
// warm-up): fsyncs, CPU, disk writes from /proc, a point per interval.
func TestServerSeriesLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Open loop at 200 writes/s: the members keep CPU to answer scrapes,
	// also under the race detector.
	cfg := Config{Command: CmdPut, Conns: []int{2}, Clients: []int{8}, Duration: 4 * time.Second, Rate: 200, Warmup: "2s",
		RequestTimeout: 5 * time.Second, Iterations: 2, KeySize: 8, ValSize: 256, SessionOptions: SessionOptions{Consistency: "l"},
		LocalMembers: 3, LocalBaseDir: dir, ScrapeInterval: time.Second}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 2 {
		t.Fatalf("%d runs", len(doc.Runs))
	}
	tmpfs := envinfo.Filesystem(dir) == "tmpfs"
	for _, r := range doc.Runs {
		srv := r.Server
		if srv == nil || len(srv.Members) != 3 || srv.IntervalSeconds != 1 || srv.EtcdVersion == "" {
			t.Fatalf("%s: server %+v", r.Name, srv)
		}
		for i, m := range srv.Members {
			s := m.Summary
			if want := []string{"m1", "m2", "m3"}[i]; m.Name != want || !answered(m) {
				t.Errorf("%s: member %d is %q with %d scrape errors (%s)", r.Name, i, m.Name, m.ScrapeErrors, m.FirstError)
			}
			// A point a second while the run lasts (4 s, more when an
			// open-loop backlog drains after it: under the race detector
			// up to 15 s); at least half of them however starved the
			// machine (a scrape that takes more than an interval skips a
			// tick).
			if d := r.End.Sub(r.Start).Seconds(); float64(len(m.Points)) < (d-1)/2-float64(m.ScrapeErrors) || float64(len(m.Points)) > math.Ceil(d)+1 {
				t.Errorf("%s %s: %d points over %.1f s at 1 s", r.Name, m.Name, len(m.Points), d)
			}
			// Only the run is scraped, not the 2 s warm-up before it: every
			// point closes an interval that began at the baseline, taken
			// just before the run, or later.
			if first := m.Points[0].UnixMillis; first < r.Start.UnixMilli() {
				t.Errorf("%s %s: first point at %d, before the run started at %d", r.Name, m.Name, first, r.Start.UnixMilli())
			}
			if s.WALFsyncs < 20 || s.CPUCoresMean <= 0 || s.WALFsyncP99 <= 0 || (!tmpfs && s.DiskWriteBytes <= 0) {
				t.Errorf("%s %s: %+v", r.Name, m.Name, s)
			}
		}
	}
}

// TestServerSeriesMemberKilled: on a cluster the bench did not start, with
// no metrics URLs given, the client endpoints are scraped (named after
// their members); a member killed mid-run shows scrape errors and the run
// still completes.
func TestServerSeriesMemberKilled(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{Members: 3})
	cfg := baseConfig(c, CmdPut)
	cfg.Total, cfg.Duration, cfg.Clients, cfg.Rate, cfg.ScrapeInterval = 0, 5*time.Second, []int{8}, 200, time.Second
	cfg.Conn.DialTimeout = 2 * time.Second
	go func() {
		time.Sleep(1500 * time.Millisecond)
		_ = c.Kill("m3")
	}()
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Runs[0]
	if r.StoppedEarly != "" || r.Requests == 0 || r.Server == nil || len(r.Server.Members) != 3 {
		t.Fatalf("run: stopped %q, %d requests, server %+v", r.StoppedEarly, r.Requests, r.Server)
	}
	for i, m := range r.Server.Members {
		if m.MetricsURL != c.Endpoints()[i] || m.Name != c.Names()[i] {
			t.Errorf("member %d: %q at %s, want %q at the client URL %s", i, m.Name, m.MetricsURL, c.Names()[i], c.Endpoints()[i])
		}
		switch {
		case m.Name == "m3" && (m.ScrapeErrors < 2 || !memberDown(m.FirstError)):
			t.Errorf("m3, killed: %d scrape errors, first %q", m.ScrapeErrors, m.FirstError)
		case m.Name != "m3" && (!answered(m) || len(m.Points) < 2):
			t.Errorf("%s: %d scrape errors (%s), %d points", m.Name, m.ScrapeErrors, m.FirstError, len(m.Points))
		}
		if m.Summary.DiskWriteBytes != 0 {
			t.Errorf("%s: disk figures for a cluster the bench did not start", m.Name)
		}
	}
}

// answered reports whether a live member's scrapes succeeded, but for
// timeouts: on this shared 2-core machine, under the race detector, a
// member starved of CPU can answer /metrics later than the deadline.
func answered(m result.MemberSeries) bool {
	return m.ScrapeErrors == 0 || strings.Contains(m.FirstError, "deadline exceeded")
}

// memberDown reports whether a scrape error is a member's death: refused,
// or cut off mid-response when the kill fell during a scrape.
func memberDown(err string) bool {
	return strings.Contains(err, "connection refused") || strings.Contains(err, "EOF") || strings.Contains(err, "connection reset")
}

// TestServerSeriesOff: without a scrape interval nothing is scraped.
func TestServerSeriesOff(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{})
	doc, err := Run(context.Background(), baseConfig(c, CmdPut))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Runs[0].Server != nil {
		t.Errorf("server series without ScrapeInterval: %+v", doc.Runs[0].Server)
	}
}
