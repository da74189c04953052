package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/result"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// syncBuffer is a buffer a running command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// background is a command running in-process.
type background struct {
	stdout, stderr syncBuffer
	code           int
	done           chan struct{}
}

func runBackground(ctx context.Context, args ...string) *background {
	b := &background{done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.code = run(ctx, args, &b.stdout, &b.stderr)
	}()
	return b
}

// wait waits for the command's end and returns its exit code.
func (b *background) wait(t *testing.T, timeout time.Duration) int {
	t.Helper()
	select {
	case <-b.done:
		return b.code
	case <-time.After(timeout):
		t.Fatalf("command still running after %s; stderr:\n%s", timeout, b.stderr.String())
		return -1
	}
}

var servingRE = regexp.MustCompile(`serving etcdlab's metrics on (http://\S+/metrics)`)

// metricsURL waits until the command says where it serves its metrics.
func (b *background) metricsURL(t *testing.T) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := servingRE.FindStringSubmatch(b.stderr.String()); m != nil {
			return m[1]
		}
		select {
		case <-b.done:
			t.Fatalf("command ended (%d) without serving metrics:\n%s", b.code, b.stderr.String())
		default:
		}
	}
	t.Fatalf("no metrics address on stderr:\n%s", b.stderr.String())
	return ""
}

// scrapeText reads url with Prometheus' text parser (expfmt).
func scrapeText(url string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// series returns the series of family name whose labels include want.
func series(mfs map[string]*dto.MetricFamily, name string, want map[string]string) []*dto.Metric {
	var out []*dto.Metric
	for _, m := range mfs[name].GetMetric() {
		n := 0
		for _, lp := range m.GetLabel() {
			if v, ok := want[lp.GetName()]; ok && v == lp.GetValue() {
				n++
			}
		}
		if n == len(want) {
			out = append(out, m)
		}
	}
	return out
}

// value is the value of the one series of name with labels want (counter,
// gauge or a histogram's count), and whether there is exactly one.
func value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	s := series(mfs, name, want)
	if len(s) != 1 {
		return 0, false
	}
	m := s[0]
	switch {
	case m.Counter != nil:
		return m.GetCounter().GetValue(), true
	case m.Gauge != nil:
		return m.GetGauge().GetValue(), true
	case m.Histogram != nil:
		return float64(m.GetHistogram().GetSampleCount()), true
	}
	return 0, false
}

// TestBenchListenMetrics runs bench with --listen-metrics on a port the
// kernel picks, closed and open loop, and scrapes it twice during the run
// with Prometheus' text parser: the ok counter and the latency
// histogram's count grow and agree, in flight is never negative, the
// target rate is --rate, run_info names the run; after the command the
// port is closed, and the last scrape is within the result's requests.
func TestBenchListenMetrics(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{})
	ep := c.Client().Endpoints[0]
	for _, tc := range []struct {
		name string
		rate float64
	}{{"closed", 0}, {"open", 200}} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"bench", "--endpoints", ep, "--listen-metrics", "127.0.0.1:0", "--clients", "4", "--duration", "3s",
				"-o", "json", "--prefix", "/listen-" + tc.name + "/", "put"}
			if tc.rate > 0 {
				args = append(args, "--rate", strconv.FormatFloat(tc.rate, 'f', -1, 64))
			}
			b := runBackground(context.Background(), args...)
			url := b.metricsURL(t)
			var scrapes []map[string]*dto.MetricFamily
			for len(scrapes) < 2 {
				time.Sleep(800 * time.Millisecond)
				mfs, err := scrapeText(url)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := value(mfs, "etcdlab_requests_total", map[string]string{"op": "put", "outcome": "ok"}); !ok && len(scrapes) == 0 {
					continue // the run has not sent yet (connecting, checking the prefix)
				}
				scrapes = append(scrapes, mfs)
			}
			ok := map[string]string{"op": "put", "outcome": "ok"}
			var prevOK, prevCount float64
			for i, mfs := range scrapes {
				n, has := value(mfs, "etcdlab_requests_total", ok)
				count, hasHist := value(mfs, "etcdlab_request_duration_seconds", map[string]string{"op": "put"})
				if !has || !hasHist || n <= prevOK || count <= prevCount || count != n {
					t.Errorf("scrape %d: ok %v (%v), histogram count %v (%v); before %v, %v: want both growing and equal", i, n, has, count, hasHist, prevOK, prevCount)
				}
				prevOK, prevCount = n, count
				if v, has := value(mfs, "etcdlab_requests_in_flight", nil); !has || v < 0 || v > 4 {
					t.Errorf("scrape %d: in flight %v (%v), want 0..4", i, v, has)
				}
				if v, _ := value(mfs, "etcdlab_target_requests_per_second", nil); v != tc.rate {
					t.Errorf("scrape %d: target rate %v, want %v", i, v, tc.rate)
				}
				if v, has := value(mfs, "etcdlab_run_info", map[string]string{"command": "bench", "run": "put conns=1 clients=4"}); !has || v != 1 {
					t.Errorf("scrape %d: no run_info for the run", i)
				}
				for _, name := range []string{"etcdlab_agent_index", "etcdlab_agent_count", "go_goroutines", "process_cpu_seconds_total"} {
					if _, has := value(mfs, name, nil); !has {
						t.Errorf("scrape %d: no %s", i, name)
					}
				}
			}
			if code := b.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("bench: exit %d\n%s", code, b.stderr.String())
			}
			var doc result.Document
			if err := json.Unmarshal([]byte(b.stdout.String()), &doc); err != nil || len(doc.Runs) != 1 {
				t.Fatalf("result: %v\n%s", err, b.stdout.String())
			}
			if float64(doc.Runs[0].Requests) < prevOK {
				t.Errorf("the result has %d requests, fewer than the last scrape's %v", doc.Runs[0].Requests, prevOK)
			}
			if _, err := scrapeText(url); err == nil {
				t.Errorf("%s still served after the command ended", url)
			}
		})
	}
}

// TestListenMetricsBusy: an address already in use is one line of error,
// exit 2, before anything runs: bench writes nothing to the cluster, an
// experiment makes no output directory, cluster up starts nothing.
func TestListenMetricsBusy(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	busy := ln.Addr().String()
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		left string // a path the command must not have made
	}{
		{"bench", []string{"bench", "--endpoints", c.Client().Endpoints[0], "--listen-metrics", busy, "put", "--total", "100"}, ""},
		{"experiment", []string{"experiment", "run", "storage-sweep", "--quick", "--out", filepath.Join(dir, "exp"), "--listen-metrics", busy}, filepath.Join(dir, "exp")},
		{"cluster up", []string{"cluster", "up", "--members", "1", "--state-file", filepath.Join(dir, "up", "cluster.json"), "--listen-metrics", busy}, filepath.Join(dir, "up")},
		{"bad address", []string{"bench", "--endpoints", c.Client().Endpoints[0], "--listen-metrics", "127.0.0.1:99999", "put", "--total", "100"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(context.Background(), tc.args...)
			if code != 2 || !strings.Contains(stderr, "--listen-metrics") || !strings.Contains(stderr, "cannot listen") || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 and one line about --listen-metrics", code, stdout, stderr)
			}
			oneLine(t, stderr)
			if tc.left != "" {
				if _, err := os.Stat(tc.left); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was made: %v", tc.left, err)
				}
			}
		})
	}
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, "\x00", clientv3.WithFromKey(), clientv3.WithCountOnly())
	if err != nil || r.Count != 0 {
		t.Errorf("the cluster holds %d keys (%v), want none", r.Count, err)
	}
}

// TestClusterUpListenMetrics runs `cluster up --listen-metrics` in-process
// and scrapes it as faults happen: every member running and one leader;
// the leader killed (from the CLI, as a person would) shows as exited and
// not running, and the scrapes see the leader change; its restart through
// the control socket counts as a fault and a start; a paused member shows
// as stopped. On an emulated network each directed link shows its
// configured delay, a change made at run time, and what it delivered.
func TestClusterUpListenMetrics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		args     []string
		emulated bool
	}{
		{"plain", nil, false},
		{"emulated", []string{"--rtt", "4ms"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.emulated {
				if err := labnet.Available(); err != nil {
					t.Skip(err)
				}
			}
			dir := t.TempDir()
			state := filepath.Join(dir, "up", "cluster.json")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := runBackground(ctx, append([]string{"cluster", "up", "--members", "3", "--state-file", state, "--listen-metrics", "127.0.0.1:0"}, tc.args...)...)
			url := b.metricsURL(t)
			st := waitState(t, state, func() string {
				select {
				case <-b.done:
					return b.stderr.String()
				default:
					return ""
				}
			})
			scrape := func() map[string]*dto.MetricFamily {
				t.Helper()
				mfs, err := scrapeText(url)
				if err != nil {
					t.Fatal(err)
				}
				return mfs
			}
			want := func(mfs map[string]*dto.MetricFamily, name string, labels map[string]string, v float64) {
				t.Helper()
				if got, ok := value(mfs, name, labels); !ok || got != v {
					t.Errorf("%s%v = %v (found: %v), want %v", name, labels, got, ok, v)
				}
			}
			leaderOf := func(mfs map[string]*dto.MetricFamily) string {
				t.Helper()
				var leaders []string
				for _, m := range series(mfs, "etcdlab_cluster_member_is_leader", nil) {
					if m.GetGauge().GetValue() == 1 {
						leaders = append(leaders, m.GetLabel()[0].GetValue())
					}
				}
				if len(leaders) != 1 {
					t.Fatalf("leaders %v, want one", leaders)
				}
				return leaders[0]
			}

			mfs := scrape()
			for _, m := range st.Members {
				member := map[string]string{"member": m.Name}
				want(mfs, "etcdlab_cluster_member_up", member, 1)
				want(mfs, "etcdlab_cluster_member_stopped", member, 0)
				want(mfs, "etcdlab_cluster_member_starts_total", member, 1)
				want(mfs, "etcdlab_cluster_member_exits_total", member, 0)
			}
			want(mfs, "etcdlab_cluster_leader_changes_seen_total", nil, 0)
			want(mfs, "etcdlab_run_info", map[string]string{"command": "cluster up", "run": st.DataDir}, 1)
			old := leaderOf(mfs)

			if code, out := cli(t, dir, "cluster", "fault", "kill", old, "--wait-leader", "20s", "--state-file", state); code != 0 {
				t.Fatalf("kill %s: %d %s", old, code, out)
			}
			mfs = scrape()
			if now := leaderOf(mfs); now == old {
				t.Errorf("the killed member %s still leads", old)
			}
			want(mfs, "etcdlab_cluster_member_up", map[string]string{"member": old}, 0)
			want(mfs, "etcdlab_cluster_member_exits_total", map[string]string{"member": old}, 1)
			want(mfs, "etcdlab_cluster_leader_changes_seen_total", nil, 1)
			if code, out := cli(t, dir, "cluster", "fault", "restart", old, "--state-file", state); code != 0 {
				t.Fatalf("restart %s: %d %s", old, code, out)
			}
			mfs = scrape()
			want(mfs, "etcdlab_cluster_member_up", map[string]string{"member": old}, 1)
			want(mfs, "etcdlab_cluster_member_starts_total", map[string]string{"member": old}, 2)
			want(mfs, "etcdlab_cluster_faults_total", map[string]string{"fault": "restart"}, 1)

			follower := leaderOf(mfs)
			for _, m := range st.Members {
				if m.Name != follower && m.Name != old {
					follower = m.Name
				}
			}
			if code, out := cli(t, dir, "cluster", "fault", "pause", follower, "--state-file", state); code != 0 {
				t.Fatalf("pause %s: %d %s", follower, code, out)
			}
			want(scrape(), "etcdlab_cluster_member_stopped", map[string]string{"member": follower}, 1)
			if code, out := cli(t, dir, "cluster", "fault", "resume", follower, "--state-file", state); code != 0 {
				t.Fatalf("resume %s: %d %s", follower, code, out)
			}
			want(scrape(), "etcdlab_cluster_member_stopped", map[string]string{"member": follower}, 0)

			if tc.emulated {
				link := map[string]string{"from": "m1", "to": "m2"}
				want(mfs, "etcdlab_cluster_link_delay_seconds", link, 0.002)
				if v, ok := value(mfs, "etcdlab_cluster_link_chunks_total", link); !ok || v <= 0 {
					t.Errorf("m1->m2 delivered %v chunks (%v), want some", v, ok)
				}
				if v, ok := value(mfs, "etcdlab_cluster_link_bytes_total", link); !ok || v <= 0 {
					t.Errorf("m1->m2 delivered %v bytes (%v), want some", v, ok)
				}
				if code, out := cli(t, dir, "cluster", "fault", "link", "m1", "m2", "--delay", "30ms", "--state-file", state); code != 0 {
					t.Fatalf("link: %d %s", code, out)
				}
				mfs = scrape()
				want(mfs, "etcdlab_cluster_link_delay_seconds", link, 0.03)
				want(mfs, "etcdlab_cluster_faults_total", map[string]string{"fault": "link"}, 1)
			} else if len(series(mfs, "etcdlab_cluster_link_delay_seconds", nil)) != 0 {
				t.Errorf("links on a cluster without emulation")
			}

			cancel()
			if code := b.wait(t, 60*time.Second); code != 0 {
				t.Fatalf("cluster up: exit %d\n%s", code, b.stderr.String())
			}
			if _, err := scrapeText(url); err == nil {
				t.Errorf("%s still served after cluster up ended", url)
			}
		})
	}
}

// TestExperimentListenMetrics runs a two-cell experiment with
// --listen-metrics and scrapes it all along: one endpoint serves both
// cells, run_info names the cell in progress, and the ok counter never
// goes down from one cell to the next; at the end it is what the cells'
// results add up to.
func TestExperimentListenMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "e.yaml")
	text := "name: e\nsetups:\n  - {name: one, members: 1}\nworkloads:\n  - name: put\n    bench: --clients={c} --duration=2s put\nsweep:\n  c: [1, 2]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	b := runBackground(context.Background(), "experiment", "run", file, "--out", out, "--data-dir", dir, "--listen-metrics", "127.0.0.1:0")
	url := b.metricsURL(t)
	ok := map[string]string{"op": "put", "outcome": "ok"}
	cells := map[string]bool{}
	var last float64
	for running := true; running; {
		select {
		case <-b.done:
			running = false
		case <-time.After(200 * time.Millisecond):
		}
		mfs, err := scrapeText(url)
		if err != nil {
			select {
			case <-b.done: // it ended between the check above and this scrape
			default:
				if running {
					t.Fatal(err)
				}
			}
			break // the command has ended and closed its endpoint
		}
		for _, m := range series(mfs, "etcdlab_run_info", map[string]string{"command": "experiment"}) {
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "run" {
					cells[lp.GetValue()] = true
				}
			}
		}
		n, _ := value(mfs, "etcdlab_requests_total", ok)
		if n < last {
			t.Errorf("ok went down from %v to %v", last, n)
		}
		last = n
	}
	if code := b.wait(t, time.Minute); code != 0 {
		t.Fatalf("experiment: exit %d\n%s", code, b.stderr.String())
	}
	if !cells["one/put/c=1"] || !cells["one/put/c=2"] {
		t.Errorf("run_info named %v, want both cells", cells)
	}
	doc, err := result.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, c := range doc.Experiment.Cells {
		for _, r := range c.Runs {
			total += r.Requests
		}
	}
	if last == 0 || last > float64(total) {
		t.Errorf("last scrape: %v ok requests; the cells' results hold %d", last, total)
	}
}
