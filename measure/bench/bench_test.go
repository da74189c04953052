package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// foreign starts a cluster that the bench sees as one it did not start.
func foreign(t *testing.T, o cluster.Options) (*cluster.Cluster, *clientv3.Client) {
	t.Helper()
	if o.Members == 0 {
		o.Members = 1
	}
	o.BaseDir = t.TempDir()
	c, err := cluster.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return c, cli
}

func baseConfig(c *cluster.Cluster, command string) Config {
	return Config{
		Command: command, Conn: c.Client(), Conns: []int{2}, Clients: []int{4}, Total: 200,
		RequestTimeout: 5 * time.Second, Iterations: 1, KeySize: 8, ValSize: 32, Consistency: "l",
		TxnOps: 1, RWRatio: 1, Limit: 100, Streams: 2, WatchersPerStream: 2, PutTotal: 50, PutRate: 500,
	}
}

func count(t *testing.T, cli *clientv3.Client, prefix string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatal(err)
	}
	return r.Count
}

// TestCleanupAndKeep: a default run leaves no key behind; --keep with
// sequential keys leaves exactly --total keys.
func TestCleanupAndKeep(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Runs[0].Requests != 200 || doc.Environment.LocalCluster || doc.Environment.ServerVersion == "" {
		t.Fatalf("run: %+v env %+v", doc.Runs[0].Stats, doc.Environment)
	}
	if n := count(t, cli, ""); n != 0 {
		t.Fatalf("%d keys left behind", n)
	}
	cfg.Keep, cfg.SequentialKeys, cfg.Prefix = true, true, "/kept/"
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := count(t, cli, "/kept/"); n != 200 {
		t.Fatalf("--keep --sequential-keys --total 200 left %d keys", n)
	}
	// The prefix is now in use: a second run must refuse and write nothing.
	_, err = Run(context.Background(), cfg)
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "already holds 200 keys") {
		t.Fatalf("prefix in use: %v", err)
	}
	if n := count(t, cli, "/kept/"); n != 200 {
		t.Fatalf("refused run changed the prefix: %d keys", n)
	}
}

// TestQuotaRefusal asks for more than half of a small quota.
func TestQuotaRefusal(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{Tuning: member.Tuning{QuotaBackendBytes: 16 << 20}})
	cfg := baseConfig(c, CmdPut)
	cfg.Total, cfg.ValSize = 100000, 1024
	_, err := Run(context.Background(), cfg)
	if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), "16 MiB quota") {
		t.Fatalf("err = %v", err)
	}
	if n := count(t, cli, ""); n != 0 {
		t.Fatalf("refused run wrote %d keys", n)
	}
}

// TestSweepIterationsWarmup: 2 client counts x 2 iterations after a warm-up.
func TestSweepIterationsWarmup(t *testing.T) {
	t.Parallel()
	c, _ := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	cfg.Clients, cfg.Iterations, cfg.Warmup, cfg.Total = []int{1, 4}, 2, "30", 60
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 4 || len(doc.Summaries) != 2 {
		t.Fatalf("%d runs, %d summaries", len(doc.Runs), len(doc.Summaries))
	}
	for _, r := range doc.Runs {
		if r.Requests != 60 {
			t.Errorf("%s: %d requests (warm-up must be excluded)", r.Name, r.Requests)
		}
	}
	s := doc.Summaries[1]
	if s.Clients != 4 || s.Iterations != 2 || s.ThroughputRPS.Mean <= 0 || s.Name != "put conns=2 clients=4" {
		t.Fatalf("summary %+v", s)
	}
}

// TestOtherWorkloads runs txn-put, txn-mixed, range, lease-keepalive and
// watch-latency once each and checks that they leave nothing behind.
func TestOtherWorkloads(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{})
	for _, cmd := range []string{CmdTxnPut, CmdTxnMixed, CmdRange, CmdLeaseKeepalive, CmdWatchLatency} {
		cfg := baseConfig(c, cmd)
		if cmd == CmdRange {
			cfg.Args = []string{"/", "0"}
		}
		if cmd == CmdTxnPut {
			cfg.TxnOps = 3
		}
		doc, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		r := doc.Runs[0]
		if r.Requests == 0 || len(r.Errors) != 0 {
			t.Fatalf("%s: %d requests, errors %v %v", cmd, r.Requests, r.Errors, r.ErrorMessages)
		}
		switch cmd {
		case CmdTxnMixed:
			if len(r.Ops) != 2 || r.Ops[0].Requests+r.Ops[1].Requests != 200 {
				t.Fatalf("txn-mixed ops %+v", r.Ops)
			}
		case CmdWatchLatency:
			if len(r.Ops) != 2 || r.Ops[0].Requests != 50 || r.Ops[1].Requests != 50*4 {
				t.Fatalf("watch-latency: %d puts, %d events (want 50, 200)", r.Ops[0].Requests, r.Ops[1].Requests)
			}
		}
		if n := count(t, cli, ""); n != 0 {
			t.Fatalf("%s left %d keys", cmd, n)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	leases, err := cli.Leases(ctx)
	if err != nil || len(leases.Leases) != 0 {
		t.Fatalf("leases left: %v %v", leases, err)
	}
}

// TestInterruptCleansUp cancels a long run: the keys written are still
// deleted and the partial result says it was interrupted.
func TestInterruptCleansUp(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{})
	cfg := baseConfig(c, CmdPut)
	cfg.Total, cfg.Duration = 0, time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(700 * time.Millisecond); cancel() }()
	doc, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Runs[0].StoppedEarly != "interrupted" || doc.Runs[0].Requests == 0 {
		t.Fatalf("run: %q %d", doc.Runs[0].StoppedEarly, doc.Runs[0].Requests)
	}
	if n := count(t, cli, ""); n != 0 {
		t.Fatalf("%d keys left after Ctrl-C", n)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Config{Command: CmdPut, Conns: []int{1}, Clients: []int{1}, Total: 1, RequestTimeout: time.Second, Iterations: 1, KeySize: 8, Consistency: "l"}
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"clients 0", func(c *Config) { c.Clients = []int{0} }, "Clients must be at least 1"},
		{"conns 0", func(c *Config) { c.Conns = []int{1, 0} }, "Conns must be at least 1"},
		{"key size 0", func(c *Config) { c.KeySize = 0 }, "--key-size"},
		{"no total", func(c *Config) { c.Total = 0 }, "give Total or Duration"},
		{"bad warmup", func(c *Config) { c.Warmup = "soon" }, "--warmup"},
		{"bad consistency", func(c *Config) { c.Consistency = "x" }, "--consistency"},
		{"range without key", func(c *Config) { c.Command = CmdRange }, "range needs a key"},
		{"unknown", func(c *Config) { c.Command = "mvcc" }, "unknown bench command"},
		{"iterations 0", func(c *Config) { c.Iterations = 0 }, "--iterations"},
	} {
		c := ok
		tt.mod(&c)
		_, err := Run(context.Background(), c)
		if exitcode.Code(err) != exitcode.Usage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	c := ok
	c.Total = 100000
	if space, note := c.keySpace(); space != 100000 || !strings.Contains(note, "one key") {
		t.Errorf("default key space %d %q", space, note)
	}
	c.KeySpaceSize = 1
	if space, note := c.keySpace(); space != 1 || note != "" {
		t.Errorf("explicit key space %d %q", space, note)
	}
}
