package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/pki"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// startCluster starts a real cluster (1 member unless o says more) that
// stops when the test ends.
func startCluster(t *testing.T, o cluster.Options) *clustertest.Cluster {
	return clustertest.Start(t, o)
}

// TestBenchErrors: each bad input is one line, the right exit code, within
// the dial timeout, and writes nothing.
func TestBenchErrors(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{TLS: true, ClientTLSDir: t.TempDir()})
	cc := c.Client()
	ep := cc.Endpoints[0]
	other, err := pki.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(wrongCA, other.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	tlsArgs := []string{"--cacert", cc.CACert, "--cert", cc.Cert, "--key", cc.Key}
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		contains string
	}{
		{"unreachable", []string{"bench", "--endpoints", "127.0.0.1:1", "put"}, 1, "connection refused"},
		{"wrong CA", []string{"bench", "--endpoints", ep, "--cacert", wrongCA, "--cert", cc.Cert, "--key", cc.Key, "put"}, 1, "unknown authority"},
		{"no client cert", []string{"bench", "--endpoints", ep, "--cacert", cc.CACert, "put"}, 1, "client certificate"},
		{"clients 0", append([]string{"bench", "--endpoints", ep, "--clients", "0", "put"}, tlsArgs...), 2, "--clients must be at least 1"},
		{"key size 0", append([]string{"bench", "--endpoints", ep, "put", "--key-size", "0"}, tlsArgs...), 2, "--key-size must be at least 1"},
		{"unknown subcommand", []string{"bench", "mvcc-put"}, 2, `unknown command "mvcc-put"`},
		{"bad output", []string{"bench", "-o", "xml", "put"}, 2, "-o must be"},
		{"negative cpus", []string{"bench", "--cpus", "-1", "kube"}, 2, "--cpus must be 0 (every core) or more, not -1"},
		{"range no key", append([]string{"bench", "--endpoints", ep, "range"}, tlsArgs...), 2, "range needs a key"},
		{"txn ops 0", append([]string{"bench", "--endpoints", ep, "txn-put", "--txn-ops", "0"}, tlsArgs...), 2, "--txn-ops must be at least 1, not 0"},
		{"put rate 0", append([]string{"bench", "--endpoints", ep, "watch-latency", "--put-rate", "0"}, tlsArgs...), 2, "--put-rate must be at least 1, not 0"},
		{"bad warmup", append([]string{"bench", "--endpoints", ep, "--warmup", "soon", "put"}, tlsArgs...), 2, `--warmup must be a request count (1000) or a duration (10s), not "soon"`},
		{"request timeout 0", append([]string{"bench", "--endpoints", ep, "--request-timeout", "0", "put"}, tlsArgs...), 2, "--request-timeout must be positive"},
		{"bad consistency", append([]string{"bench", "--endpoints", ep, "range", "/k", "--consistency", "x"}, tlsArgs...), 2, `--consistency must be l (linearizable) or s (serializable), not "x"`},
		{"negative rw ratio", append([]string{"bench", "--endpoints", ep, "txn-mixed", "--rw-ratio=-1"}, tlsArgs...), 2, "--rw-ratio must not be negative"},
		{"key space too large", append([]string{"bench", "--endpoints", ep, "put", "--key-size", "1", "--key-space-size", "17"}, tlsArgs...), 2,
			"--key-size 1 (hex digits) cannot name 17 distinct keys; raise --key-size or lower --key-space-size"},
		{"past the quota", append([]string{"bench", "--endpoints", ep, "put", "--total", "100000000", "--val-size", "100000"}, tlsArgs...), 2,
			"of the quota (1.0 GiB); lower --total or --val-size"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			began := time.Now()
			code, stdout, stderr := runCLI(context.Background(), tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.contains) || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d with %q", code, stdout, stderr, tt.code, tt.contains)
			}
			oneLine(t, stderr)
			if took := time.Since(began); took > 5*time.Second {
				t.Fatalf("took %v (dial timeout is 2s)", took)
			}
		})
	}
	cli, err := etcdclient.New(cc)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if r, err := cli.Get(ctx, "", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || r.Count != 0 {
		t.Fatalf("failed runs wrote %v keys (%v)", r.Count, err)
	}

	// A prefix that holds keys is refused as invalid input, naming the flag,
	// and left as it was.
	if _, err := cli.Put(ctx, "/busy/k", "v"); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(context.Background(), append([]string{"bench", "--endpoints", ep, "--prefix", "/busy/", "put"}, tlsArgs...)...)
	if code != 2 || stdout != "" || !strings.Contains(stderr, "--prefix /busy/ already holds 1 keys; choose an empty --prefix") {
		t.Fatalf("prefix in use: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if r, err := cli.Get(ctx, "/busy/", clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || r.Count != 1 {
		t.Fatalf("refused run changed the prefix: %v keys (%v)", r.Count, err)
	}
}

// TestBenchAuth: wrong credentials fail in one line; right ones work; the
// password never appears in any output.
func TestBenchAuth(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{})
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const secret = "s3cr3t-Zq9"
	for _, step := range []func() error{
		func() error { _, err := cli.UserAdd(ctx, "root", secret); return err },
		func() error { _, err := cli.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := cli.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	ep := c.Endpoints()[0]
	// 15 s: the members run from this race-built test binary, where bcrypt
	// (each Authenticate) is many times slower than in etcd.
	code, _, stderr := runCLI(context.Background(), "bench", "--endpoints", ep, "--dial-timeout", "15s", "--user", "root:wrong-pw", "put", "--total", "10")
	if code != 1 || !strings.Contains(stderr, "authentication failed") {
		t.Fatalf("wrong password: %d %q", code, stderr)
	}
	oneLine(t, stderr)
	code, stdout, stderr := runCLI(context.Background(), "bench", "--endpoints", ep, "--dial-timeout", "15s", "--user", "root:"+secret, "-o", "json", "put", "--total", "50")
	if code != 0 {
		t.Fatalf("right password: %d %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Fatal("the password appears in the output")
	}
	doc, err := result.Read(strings.NewReader(stdout))
	if err != nil || doc.Bench.User != "root:<redacted>" || doc.Runs[0].Requests != 50 {
		t.Fatalf("doc %+v %v", doc, err)
	}
}

// TestBenchJSONAndLocalCluster runs with no endpoints (a local cluster is
// started and removed) and checks the JSON document.
func TestBenchJSONAndLocalCluster(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"bench", "--members", "1", "--clients", "2,4", "-o", "json", "put", "--total", "100", "--val-size", "16"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "started a local 1-member cluster") {
		t.Fatalf("no local-cluster line: %q", errb.String())
	}
	doc, err := result.Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != result.SchemaVersion || doc.Kind != "bench" || len(doc.Runs) != 2 || !doc.Environment.LocalCluster {
		t.Fatalf("doc: %+v", doc)
	}
	r := doc.Runs[1]
	if r.Clients != 4 || r.Requests != 100 || r.Latency.P999 < r.Latency.P50 || r.Histogram == "" || len(r.TimeSeries) == 0 {
		t.Fatalf("run: %+v", r)
	}
	// Its own cluster's directory is gone (other tests start local
	// clusters in .etcdlab at the same time, so only this one is checked).
	_, rest, ok := strings.Cut(errb.String(), "-member cluster in ")
	dir, _, _ := strings.Cut(rest, " (removed")
	if !ok || dir == "" {
		t.Fatalf("no cluster directory in %q", errb.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("left %s: %v", dir, err)
	}
}

// TestArticleCommandLines runs the two command lines from issue 3 with
// their flags in the same places (global flags before the subcommand, TLS
// flags after it), with smaller totals.
func TestArticleCommandLines(t *testing.T) {
	t.Parallel()
	c := startCluster(t, cluster.Options{Members: 3, TLS: true, ClientTLSDir: t.TempDir()})
	cc := c.Client()
	ep := cc.Endpoints[0]
	eps := strings.Join(cc.Endpoints, ",")
	code, out, stderr := runCLI(context.Background(), "bench", "--endpoints="+ep, "--target-leader", "--conns=1", "--clients=1", "put",
		"--key-size=8", "--sequential-keys", "--total=300", "--val-size=256", "--cacert", cc.CACert, "--cert", cc.Cert, "--key", cc.Key,
		"--compact-interval=200ms", "--check-hashkv")
	if code != 0 || !strings.Contains(out, "Requests/sec:") || !strings.Contains(out, "99.9% in") {
		t.Fatalf("first command: %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "compacted") || !strings.Contains(stderr, "HashKV of") {
		t.Fatalf("--compact-interval/--check-hashkv not reported: %s", stderr)
	}
	code, out, stderr = runCLI(context.Background(), "bench", "--endpoints="+eps, "--conns=10", "--clients=100", "put",
		"--key-size=8", "--val-size=256", "--total=3000", "--key-space-size=3000", "--cacert", cc.CACert, "--cert", cc.Cert, "--key", cc.Key)
	if code != 0 || !strings.Contains(out, "Summary:") {
		t.Fatalf("second command: %d\n%s\n%s", code, out, stderr)
	}
}
