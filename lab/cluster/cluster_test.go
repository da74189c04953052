package cluster

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func start(t *testing.T, o Options) *Cluster {
	t.Helper()
	if o.DataDir == "" && o.BaseDir == "" {
		o.BaseDir = t.TempDir()
	}
	c, err := Start(context.Background(), o)
	if err != nil {
		var se *StartError
		if errors.As(err, &se) {
			t.Log(se.Detail())
		}
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	return c
}

func client(t *testing.T, cfg etcdclient.Config) *clientv3.Client {
	t.Helper()
	cli, err := etcdclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func put(cli *clientv3.Client, k, v string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := cli.Put(ctx, k, v)
	return err
}

// putRetry writes with 1 s request timeouts, up to 10 tries.
func putRetry(cli *clientv3.Client, k, v string) error {
	var err error
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = cli.Put(ctx, k, v)
		cancel()
		if err == nil {
			return nil
		}
	}
	return err
}

func get(t *testing.T, cli *clientv3.Client, k string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, k)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	if len(r.Kvs) == 0 {
		return ""
	}
	return string(r.Kvs[0].Value)
}

func pids(c *Cluster) []proc.ID {
	var out []proc.ID
	for _, m := range c.State().Members {
		out = append(out, m.Process())
	}
	return out
}

func assertGone(t *testing.T, ids []proc.ID, path string) {
	t.Helper()
	for _, id := range ids {
		if !id.WaitGone(5 * time.Second) {
			t.Errorf("member process %d still alive", id.PID)
		}
	}
	if path != "" {
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind (stat err %v)", path, err)
		}
	}
}

// TestThreeMembers covers the life of a 3-member cluster: writes and reads,
// status, one member killed (the rest keep serving, status says why it is
// unreachable), restarted, paused and resumed, and a clean stop.
func TestThreeMembers(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "new-dir")
	c := start(t, Options{Members: 3, DataDir: dataDir})
	st := c.State()
	if len(st.Members) != 3 || len(st.Endpoints) != 3 || len(st.MetricsURLs) != 3 {
		t.Fatalf("state: %+v", st)
	}
	for _, m := range st.Members {
		if m.ID == "" || m.PID == 0 || !m.Process().Alive() {
			t.Errorf("member %s: id %q pid %d not running", m.Name, m.ID, m.PID)
		}
		if _, err := os.Stat(m.LogFile); err != nil || !strings.HasPrefix(m.LogFile, m.DataDir) {
			t.Errorf("member %s: log %s not in data dir %s: %v", m.Name, m.LogFile, m.DataDir, err)
		}
	}
	cli := client(t, c.Client())
	if err := put(cli, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	if got := get(t, cli, "k"); got != "v1" {
		t.Fatalf("get k = %q", got)
	}

	statuses := Status(context.Background(), c.Client(), nil)
	leaders := 0
	for _, s := range statuses {
		if !s.Healthy {
			t.Errorf("%s unhealthy: %s", s.Endpoint, s.Error)
		}
		if s.Role == "leader" {
			leaders++
		}
	}
	if leaders != 1 {
		t.Fatalf("want 1 leader, got %d: %+v", leaders, statuses)
	}

	victim := st.Members[2]
	if err := c.Kill(victim.Name); err != nil {
		t.Fatal(err)
	}
	if victim.Process().Alive() {
		t.Fatal("killed member still alive")
	}
	// The etcd client may hold one request on the dead member's connection
	// until its deadline; a client with a request timeout retries, as
	// etcdlab bench will.
	if err := putRetry(cli, "k", "v2"); err != nil {
		t.Fatalf("write with one member down: %v; status %+v", err, Status(context.Background(), c.Client(), nil))
	}
	statuses = Status(context.Background(), c.Client(), map[string]string{victim.ClientURL: victim.Name})
	s := statuses[2]
	if s.Healthy || s.Role != "unreachable" || !strings.Contains(s.Error, "connection refused") || s.Name != victim.Name {
		t.Fatalf("killed member status: %+v", s)
	}
	if err := c.Restart(victim.Name); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, c, 2)

	if err := c.Pause(victim.Name); err != nil {
		t.Fatal(err)
	}
	s = Status(context.Background(), c.Client(), nil)[2]
	if s.Healthy || !strings.Contains(s.Error, "timed out") {
		t.Fatalf("paused member status: %+v", s)
	}
	if err := c.Resume(victim.Name); err != nil {
		t.Fatal(err)
	}
	waitHealthy(t, c, 2)

	ids := pids(c)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, ids, dataDir)
}

func waitHealthy(t *testing.T, c *Cluster, i int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := Status(context.Background(), c.Client(), nil)[i]
		if s.Healthy {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("member %d not healthy again: %+v", i, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestSingleMemberTempDir starts one member in a temporary data dir and
// checks that Stop removes it and every process.
func TestSingleMemberTempDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	c := start(t, Options{Members: 1, BaseDir: base})
	if !strings.HasPrefix(c.DataDir(), base) {
		t.Fatalf("data dir %s not under %s", c.DataDir(), base)
	}
	if err := put(client(t, c.Client()), "a", "b"); err != nil {
		t.Fatal(err)
	}
	ids := pids(c)
	dir := c.DataDir()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, ids, dir)
	if c.KeptDataDir() != "" {
		t.Fatalf("kept %s without KeepData", c.KeptDataDir())
	}
}

// TestTLS checks that the generated client certificate is accepted and that a
// client without one is refused.
func TestTLS(t *testing.T) {
	t.Parallel()
	clientDir := t.TempDir()
	c := start(t, Options{Members: 1, TLS: true, ClientTLSDir: clientDir})
	cfg := c.Client()
	for _, ep := range cfg.Endpoints {
		if !strings.HasPrefix(ep, "https://") {
			t.Fatalf("endpoint %s is not https", ep)
		}
	}
	for _, f := range []string{"ca.crt", "client.crt", "client.key"} {
		if _, err := os.Stat(filepath.Join(clientDir, f)); err != nil {
			t.Fatalf("%s not written next to the state file: %v", f, err)
		}
	}
	if err := put(client(t, cfg), "tls", "ok"); err != nil {
		t.Fatalf("client with certificate: %v", err)
	}
	noCert := cfg
	noCert.Cert, noCert.Key = "", ""
	err := put(client(t, noCert), "tls", "no")
	if err == nil {
		t.Fatal("client without a certificate was accepted")
	}
	t.Logf("refused as expected: %s", etcdclient.Describe(err))
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(clientDir, "client.key")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("client key left behind after Stop")
	}
}

// TestKeepDataRestart keeps a cluster's data, starts it again from the same
// directory and finds the data there; a later run without --keep-data still
// does not delete data a person chose to keep.
func TestKeepDataRestart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "kept")
	c := start(t, Options{Members: 3, DataDir: dir, KeepData: true})
	if err := put(client(t, c.Client()), "persist", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if c.KeptDataDir() != dir {
		t.Fatalf("KeptDataDir = %q, want %q", c.KeptDataDir(), dir)
	}
	if _, err := Start(context.Background(), Options{Members: 1, DataDir: dir}); !invalid.Is(err) || !strings.Contains(err.Error(), "3-member cluster; run with Members 3 or choose another DataDir") {
		t.Fatalf("wrong member count on a kept dir: %v", err)
	}
	c2 := start(t, Options{Members: 3, DataDir: dir})
	if got := get(t, client(t, c2.Client()), "persist"); got != "yes" {
		t.Fatalf("restarted cluster lost data: %q", got)
	}
	if err := c2.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "m1", "member")); err != nil {
		t.Fatalf("kept data deleted by a later run: %v", err)
	}
}

// TestStartErrors checks that bad options fail with one line, as
// invalid-input errors, that other failures are not invalid input, and that
// nothing is left behind.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	file := filepath.Join(tmp, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Occupy a port to collide with: bound by the kernel's choice and held,
	// so no parallel test can take it between choosing and binding.
	ln := listen(t, 0)
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port

	for _, tt := range []struct {
		name     string
		opts     Options
		invalid  bool
		contains string
	}{
		{"zero members", Options{Members: 0}, true, "Members must be between 1 and 7"},
		{"eight members", Options{Members: 8}, true, "between 1 and 7"},
		{"bad election timeout", Options{Members: 1, Tuning: tuning(100, 200)}, true, "ElectionMs (200 ms) must be at least 5 times HeartbeatMs"},
		{"non-loopback host", Options{Members: 1, Host: "192.0.2.1"}, true, "Host must be a loopback"},
		{"data dir under a file", Options{Members: 1, DataDir: filepath.Join(file, "x")}, false, "not a directory"},
		{"data dir is a file", Options{Members: 1, DataDir: file}, false, "not a directory"},
		{"port taken", Options{Members: 1, PortBase: taken, DataDir: filepath.Join(tmp, "p")}, false, "in use"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.opts.DataDir == "" {
				tt.opts.BaseDir = filepath.Join(tmp, "base-"+strings.ReplaceAll(tt.name, " ", "-"))
			}
			c, err := Start(context.Background(), tt.opts)
			if err == nil {
				_ = c.Stop()
				t.Fatal("Start succeeded")
			}
			if invalid.Is(err) != tt.invalid || !strings.Contains(err.Error(), tt.contains) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %q (invalid input: %v), want invalid input %v, containing %q on one line", err, invalid.Is(err), tt.invalid, tt.contains)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "p")); !errors.Is(err, os.ErrNotExist) {
		t.Error("failed start left its data dir behind")
	}
	entries, _ := filepath.Glob(filepath.Join(tmp, "base-*", "data-*"))
	if len(entries) != 0 {
		t.Errorf("failed starts left temp dirs: %v", entries)
	}
}
