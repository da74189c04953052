package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/envinfo"
)

// TestServerSeriesLocal: a bench against the local 3-member cluster it
// starts records every member's metrics during each measured run (not the
// warm-up): fsyncs, CPU, disk writes from /proc, a point per interval.
func TestServerSeriesLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := Config{Command: CmdPut, Conns: []int{2}, Clients: []int{8}, Duration: 3 * time.Second, Warmup: "1s",
		RequestTimeout: 5 * time.Second, Iterations: 2, KeySize: 8, ValSize: 256, Consistency: "l",
		LocalMembers: 3, LocalBaseDir: dir, ScrapeInterval: 500 * time.Millisecond}
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
		if srv == nil || len(srv.Members) != 3 || srv.IntervalSeconds != 0.5 || srv.EtcdVersion == "" {
			t.Fatalf("%s: server %+v", r.Name, srv)
		}
		for i, m := range srv.Members {
			s := m.Summary
			if want := []string{"m1", "m2", "m3"}[i]; m.Name != want || m.ScrapeErrors != 0 {
				t.Errorf("%s: member %d is %q with %d scrape errors (%s)", r.Name, i, m.Name, m.ScrapeErrors, m.FirstError)
			}
			// The run lasts 3 s (the warm-up before it is not scraped): 6 points.
			if len(m.Points) < 5 || len(m.Points) > 7 {
				t.Errorf("%s %s: %d points over %.1f s at 0.5 s", r.Name, m.Name, len(m.Points), r.DurationSeconds)
			}
			// The first scrape ends one interval after the run starts; a
			// loaded machine may add a second.
			if first := m.Points[0].UnixMillis; first < r.Start.UnixMilli() || first > r.Start.Add(2*time.Second).UnixMilli() {
				t.Errorf("%s %s: first point at %d, run started at %d", r.Name, m.Name, first, r.Start.UnixMilli())
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
	cfg.Total, cfg.Duration, cfg.Clients, cfg.ScrapeInterval = 0, 4*time.Second, []int{8}, 500*time.Millisecond
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
		case m.Name == "m3" && (m.ScrapeErrors < 2 || !killedErr(m.FirstError)):
			t.Errorf("m3, killed: %d scrape errors, first %q", m.ScrapeErrors, m.FirstError)
		case m.Name != "m3" && (m.ScrapeErrors != 0 || len(m.Points) < 6):
			t.Errorf("%s: %d scrape errors (%s), %d points", m.Name, m.ScrapeErrors, m.FirstError, len(m.Points))
		}
		if m.Summary.DiskWriteBytes != 0 {
			t.Errorf("%s: disk figures for a cluster the bench did not start", m.Name)
		}
	}
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

// killedErr reports whether a scrape error is what a killed member gives:
// its port refuses, or a kept-alive connection to it was reset or closed.
func killedErr(msg string) bool {
	for _, s := range []string{"connection refused", "connection reset", "EOF"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
