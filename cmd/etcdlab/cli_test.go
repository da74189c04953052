package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
)

func TestUsageAndErrors(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "none.json")
	for _, tt := range []struct {
		args     []string
		code     int
		contains string
	}{
		{[]string{"cluster", "up", "--members", "0"}, 2, "between 1 and 7"},
		{[]string{"cluster", "up", "--members", "8"}, 2, "between 1 and 7"},
		{[]string{"cluster", "up", "--bogus"}, 2, "unknown flag: --bogus"},
		{[]string{"cluster", "up", "--members", "x"}, 2, "invalid argument"},
		{[]string{"cluster", "up", "--metrics", "full"}, 2, "basic or extensive"},
		{[]string{"cluster", "up", "extra"}, 2, "takes no arguments"},
		{[]string{"cluster", "bogus"}, 2, `unknown command "bogus"`},
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"cluster", "status", "-o", "yaml"}, 2, "table or json"},
		{[]string{"cluster", "status", "--state-file", missing}, 1, "does not exist"},
		{[]string{"cluster", "down", "--state-file", missing}, 1, "does not exist"},
		{[]string{"cluster", "status", "--endpoints", "http://127.0.0.1:1"}, 1, "connection refused"},
		{[]string{"member"}, 2, "needs --config"},
		// Libraries name options by field; each command names them as its flags.
		{[]string{"cluster", "up", "--members", "9"}, 2, "--members must be between 1 and 7, not 9"},
		{[]string{"cluster", "up", "--election-timeout", "200"}, 2, "--election-timeout (200 ms) must be at least 5 times --heartbeat-interval (100 ms)"},
		{[]string{"cluster", "up", "--host", "192.0.2.1"}, 2, "--host must be a loopback address"},
		{[]string{"cluster", "up", "--port-base", "65534"}, 2, "--port-base 65534 leaves no room for 3 members"},
		{[]string{"cluster", "up", "--log-level", "trace"}, 2, "--log-level must be debug, info, warn or error"},
		{[]string{"check", "--load", "x"}, 2, `--load: load level must be s, m, l or xl, not "x"`},
		{[]string{"check", "--load", "m", "--max-load", "s"}, 2, "--max-load s is below --load m"},
		{[]string{"check", "--endpoints", "https://127.0.0.1:1", "--cert", "c.crt"}, 2, "--cert and --key must be given together"},
		{[]string{"disk", "--sync", "msync"}, 2, `--sync must be fdatasync, fsync or odsync, not "msync"`},
		{[]string{"disk", "--profile", "hdd"}, 2, `--profile must be etcd or openshift, not "hdd"`},
		{[]string{"disk", "--bs", "100000000"}, 2, "--bs 100000000 is larger than 64 MiB"},
		// The load generator's CPU budget (issue 24).
		{[]string{"bench", "--load-cpus", "-1", "put"}, 2, "--load-cpus must be a number of CPUs from 0.01 (0.5, 2), not -1"},
		{[]string{"bench", "--load-cpus", "NaN", "put"}, 2, "--load-cpus must be a number of CPUs from 0.01 (0.5, 2), not NaN"},
		{[]string{"bench", "--load-cpus", "0.001", "--endpoints", "http://127.0.0.1:1", "put"}, 2, "--load-cpus must be a number of CPUs from 0.01"},
		{[]string{"bench", "--load-cpus", "x", "put"}, 2, "invalid argument"},
		{[]string{"check", "--load-cpus", "0.5"}, 2, "--load-cpus applies to a live cluster (--endpoints)"},
		{[]string{"check", "--load-cpus", "-1", "--endpoints", "http://127.0.0.1:1"}, 2, "--load-cpus must be a number of CPUs from 0.01"},
		{[]string{"experiment", "run", "leader-vs-all", "--load-cpus", "-1"}, 2, "--load-cpus must be a number of CPUs from 0.01"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(context.Background(), tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.contains) {
				t.Fatalf("exit %d, stderr %q; want exit %d containing %q", code, stderr, tt.code, tt.contains)
			}
			if !strings.Contains(strings.Join(tt.args, " "), "status --endpoints") && stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			oneLine(t, stderr)
		})
	}
}

func TestVersionHelpCompletion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(context.Background(), "--version")
	if code != 0 || !strings.Contains(out, "etcd 3.7.") {
		t.Fatalf("--version: %d %q", code, out)
	}
	code, out, _ = runCLI(context.Background(), "cluster", "up", "--help")
	if code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--heartbeat-interval") {
		t.Fatalf("cluster up --help: %d %q", code, out)
	}
	code, out, _ = runCLI(context.Background(), "completion", "bash")
	if code != 0 || !strings.Contains(out, "bash completion") {
		t.Fatalf("completion bash: %d", code)
	}
	_, out, _ = runCLI(context.Background(), "--help")
	if strings.Contains(out, "member --config") {
		t.Fatal("hidden member command shown in help")
	}
}

// TestPortTaken asks for a port another program holds.
func TestPortTaken(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	dir := t.TempDir()
	state := filepath.Join(dir, "s", "cluster.json")
	code, _, stderr := runCLI(context.Background(), "cluster", "up", "--members", "1", "--port-base", strconv.Itoa(port), "--state-file", state)
	if code != 1 || !strings.Contains(stderr, fmt.Sprintf("port 127.0.0.1:%d (member m1 client) is in use", port)) {
		t.Fatalf("%d %q", code, stderr)
	}
	oneLine(t, stderr)
	if _, err := os.Stat(filepath.Join(dir, "s")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("state dir left behind: %v", err)
	}
}

// TestStaleStateFile points status and down at a state file whose etcdlab
// process has exited: both fail with one line, and down removes the file.
func TestStaleStateFile(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	dead := proc.ID{PID: cmd.Process.Pid, StartTime: 1}
	_ = cmd.Wait()
	path := filepath.Join(t.TempDir(), "cluster.json")
	st := cluster.State{SchemaVersion: cluster.StateSchemaVersion, Controller: dead, Endpoints: []string{"http://127.0.0.1:1"},
		Members: []cluster.MemberState{{Name: "m1", PID: dead.PID, StartTime: 1, ClientURL: "http://127.0.0.1:1"}}}
	if err := cluster.WriteStateFile(path, st); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(context.Background(), "cluster", "status", "--state-file", path)
	if code != 1 || !strings.Contains(stderr, "not running") {
		t.Fatalf("status: %d %q", code, stderr)
	}
	oneLine(t, stderr)
	code, _, stderr = runCLI(context.Background(), "cluster", "down", "--state-file", path)
	if code != 1 || !strings.Contains(stderr, "removed stale state file") {
		t.Fatalf("down: %d %q", code, stderr)
	}
	oneLine(t, stderr)
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("stale state file left behind")
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(context.Background(), "cluster", "status", "--state-file", path)
	if code != 1 || !strings.Contains(stderr, "not valid JSON") {
		t.Fatalf("malformed state: %d %q", code, stderr)
	}
}

// TestUpStatusInProcess runs `cluster up` in-process until its context is
// cancelled (what Ctrl-C does), with `cluster status` against it meanwhile.
func TestUpStatusInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state := filepath.Join(dir, "state", "cluster.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		code           int
		stdout, stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, o, e := runCLI(ctx, "cluster", "up", "--members", "1", "--state-file", state, "--metrics", "extensive")
		done <- result{code, o, e}
	}()
	st := waitState(t, state, func() string {
		select {
		case r := <-done:
			return r.stderr
		default:
			return ""
		}
	})
	code, out, stderr := runCLI(context.Background(), "cluster", "status", "--state-file", state, "-o", "json")
	if code != 0 {
		t.Fatalf("status: %d %s", code, stderr)
	}
	var got struct{ Members []cluster.MemberStatus }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("status JSON: %v\n%s", err, out)
	}
	if len(got.Members) != 1 || !got.Members[0].Healthy || got.Members[0].Role != "leader" || got.Members[0].Name != "m1" {
		t.Fatalf("status: %+v", got.Members)
	}
	cancel()
	select {
	case r := <-done:
		if r.code != 0 || !strings.Contains(r.stdout, "ready in") {
			t.Fatalf("up: %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("cluster up did not stop after cancel")
	}
	if _, err := os.Stat(filepath.Dir(state)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("state dir left behind: %v", err)
	}
	for _, m := range st.Members {
		if m.Process().Alive() {
			t.Errorf("member %s still running", m.Name)
		}
	}
}

// waitState waits for a state file to appear; exited returns the failed
// command's stderr if it ended early.
func waitState(t *testing.T, path string, exited func() string) cluster.State {
	t.Helper()
	return waitStateWithin(t, path, exited, 40*time.Second)
}

// waitStateWithin is waitState with its own bound (a build of etcd first).
func waitStateWithin(t *testing.T, path string, exited func() string, within time.Duration) cluster.State {
	t.Helper()
	var st cluster.State
	clustertest.WaitFor(t, within, "a state file at "+path, func() bool {
		var err error
		if st, err = cluster.ReadStateFile(path); err == nil {
			return true
		}
		if e := exited(); e != "" {
			t.Fatalf("cluster up ended early: %s", e)
		}
		return false
	})
	return st
}
