package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// recorder is an endpoint that records every connection made to it: a
// command that dials it before it fails has dialled before validating.
type recorder struct {
	ln       net.Listener
	accepted atomic.Int64
}

func newRecorder(t *testing.T) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{ln: ln}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.accepted.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); <-done })
	return r
}

// TestBadInputDialsNothing: every bad input of issue 32's item 6, on every
// command, is one line on stderr with exit code 2, before the command
// dials, starts, prints or writes anything.
//
// It is not parallel: it runs each command line in a directory of its own
// (t.Chdir), where a command that started a cluster or wrote a result
// would leave files.
func TestBadInputDialsNothing(t *testing.T) {
	rec := newRecorder(t)
	ep := rec.ln.Addr().String()
	metricsURL := "http://" + ep + "/metrics"
	missing := filepath.Join(t.TempDir(), "missing")
	tmp := t.TempDir()
	live := []string{"--endpoints", ep}
	on := func(args ...string) []string { return append(args, live...) }
	for _, tt := range []struct {
		args     []string
		contains string
	}{
		// bench: counts, sizes, durations, files, contradictions.
		{on("bench", "--agents", "0", "put"), "--agents must be at least 1, not 0"},
		{on("bench", "--agents", "-1", "put"), "--agents must be at least 1, not -1"},
		{on("bench", "put", "--val-size", "2000000"), "above etcd's default request limit of 1572864 bytes"},
		{on("bench", "put", "--val-size", "1572860"), "lower --val-size"},
		{on("bench", "txn-put", "--txn-ops", "4", "--val-size", "500000"), "a txn-put request of --txn-ops × (--key-size + --val-size)"},
		{on("bench", "watch-latency", "--val-size", "3000000"), "above etcd's default request limit"},
		{on("bench", "--dial-timeout", "-1s", "put"), "--dial-timeout must not be negative"},
		{on("bench", "--cacert", missing, "put"), "--cacert: open " + missing},
		{on("bench", "--cert", missing, "--key", missing, "put"), "--cert: open " + missing},
		{on("bench", "--clients", "0", "put"), "--clients must be at least 1, not 0"},
		{on("bench", "--conns", "0", "put"), "--conns must be at least 1, not 0"},
		{on("bench", "--iterations", "0", "put"), "--iterations must be at least 1"},
		{on("bench", "put", "--total", "-1"), "--total must not be negative"},
		{on("bench", "put", "--duration", "-1s"), "--duration must not be negative"},
		{on("bench", "--request-timeout", "0", "put"), "--request-timeout must be positive"},
		{on("bench", "--scrape-interval", "-1s", "put"), "--scrape-interval must not be negative"},
		{on("bench", "--metrics-urls", "::bad", "put"), `--metrics-urls: "::bad" is not an http(s) URL`},
		{on("bench", "--cpus", "-1", "put"), "--cpus must be 0 (every core) or more, not -1"},
		{on("bench", "--listen-metrics", "bad:x:y", "put"), "--listen-metrics"},
		{on("bench", "--agents", "2", "--clients", "1", "--conns", "2", "--prefix", "/p/", "put"), "--clients 1 cannot be split into 2 agents"},
		{on("bench", "kube", "--control-plane", "both"), "--control-plane must be emulated or real"},
		{[]string{"bench", "--members", "0", "put"}, "--members must be between 1 and 7, not 0"},
		{[]string{"bench", "--members", "9", "put"}, "--members must be between 1 and 7, not 9"},
		{[]string{"bench", "--agents", "2", "--clients", "1", "put"}, "cannot be split into 2 agents"},
		{[]string{"bench", "--agents", "2", "watch-latency"}, "watch-latency does not split into agents"},
		// check
		{on("check", "--level-duration", "0"), "--level-duration must be positive, not 0s"},
		{on("check", "--level-duration", "-1s"), "--level-duration must not be negative"},
		{on("check", "--disk-runtime", "-1s"), "--disk-runtime must not be negative"},
		{on("check", "--data-dir", tmp), "with --endpoints check runs no disk probe"},
		{on("check", "--dial-timeout", "-1s"), "--dial-timeout must not be negative"},
		{on("check", "--cacert", missing), "--cacert: open " + missing},
		{on("check", "--load", "xl", "--max-load", "s"), "--max-load s is below --load xl"},
		{[]string{"check", "--data-dir", missing}, "--data-dir " + missing + " does not exist"},
		// doctor
		{on("doctor", "--window", "0"), "--window must be positive, not 0s"},
		{on("doctor", "--keyspace-page", "0"), "--keyspace-page must be at least 1, not 0"},
		{on("doctor", "--logs", missing), "--logs " + missing + " does not exist"},
		{on("doctor", "--data-dir", missing), "--data-dir " + missing + " does not exist"},
		{on("doctor", "--since", "-1h"), "--since must not be negative"},
		{on("doctor", "--dial-timeout", "-1s"), "--dial-timeout must not be negative"},
		{on("doctor", "--cacert", missing), "--cacert: open " + missing},
		{on("doctor", "--metrics-urls", metricsURL+","+metricsURL), "--metrics-urls must name one URL per endpoint"},
		{on("doctor", "--prometheus", "::bad"), "--prometheus"},
		// disk
		{[]string{"disk", "--dir", missing}, "--dir " + missing + " does not exist"},
		{[]string{"disk", "--bs", "0"}, "--bs must be positive"},
		{[]string{"disk", "--runtime", "-1s"}, "--runtime must not be negative"},
		// experiment
		{[]string{"experiment", "run", missing + ".yaml"}, "experiment file"},
		{[]string{"experiment", "run", "storage-sweep", "--retry-failed"}, "--retry-failed needs --resume"},
		{[]string{"experiment", "run", "storage-sweep", "--resume", missing}, "--resume"},
		{[]string{"experiment", "run", "storage-sweep", "--load-cpus", "-1"}, "--load-cpus must be a number of CPUs"},
		{[]string{"experiment", "run", "storage-sweep", "--listen-metrics", "bad:x:y"}, "--listen-metrics"},
		// cluster
		{[]string{"cluster", "up", "--members", "0"}, "--members must be between 1 and 7, not 0"},
		{[]string{"cluster", "up", "--start-timeout", "-1s"}, "--start-timeout must not be negative"},
		{[]string{"cluster", "up", "--leader", "m9"}, "--leader must be a member"},
		{[]string{"cluster", "up", "--topology", missing}, "topology"},
		{[]string{"cluster", "down", "--timeout", "-1s"}, "--timeout must not be negative"},
		{[]string{"cluster", "fault", "kill", "m1", "--delay", "1s"}, "apply to link, not to kill"},
		{[]string{"cluster", "fault", "link", "m1", "m2", "--loss", "2"}, "loss 2 is not a probability below 1"},
		{[]string{"cluster", "fault", "--wait-leader", "-1s", "kill", "m1"}, "--wait-leader must not be negative"},
		{[]string{"cluster", "fault", "nosuch", "m1"}, `unknown fault "nosuch"`},
		{[]string{"cluster", "upgrade"}, "--to is required"},
		{on("cluster", "status", "--cacert", missing), "--cacert: open " + missing},
		{on("cluster", "status", "--dial-timeout", "-1s"), "--dial-timeout must not be negative"},
		// agents, reports
		{[]string{"agent", "--args-file", missing}, "--args-file"},
		{append([]string{"agent", "--index", "0", "--"}, on("put")...), "no --agents N"},
		{[]string{"agent", "manifests", "--agents", "0"}, "--agents must be at least 2"},
		{[]string{"report", missing + ".json"}, "no such file"},
		{[]string{"compare", missing + ".json", missing + "2.json"}, "no such file"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			before := rec.accepted.Load()
			code, stdout, stderr := runCLI(context.Background(), tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.contains) {
				t.Fatalf("exit %d, stderr %q; want exit 2 containing %q", code, stderr, tt.contains)
			}
			oneLine(t, stderr)
			if stdout != "" {
				t.Errorf("stdout %q; want nothing", stdout)
			}
			if n := rec.accepted.Load() - before; n != 0 {
				t.Errorf("dialled the endpoint %d times before failing", n)
			}
			if files, err := os.ReadDir(dir); err != nil || len(files) != 0 {
				t.Errorf("wrote %v (%v) before failing", files, err)
			}
		})
	}
}
