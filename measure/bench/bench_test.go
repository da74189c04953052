package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// foreign starts a cluster that the bench sees as one it did not start.
// foreign starts a cluster the bench did not start (bench only gets its
// endpoints), and a client of it.
func foreign(t *testing.T, o cluster.Options) (*clustertest.Cluster, *clientv3.Client) {
	t.Helper()
	c := clustertest.Start(t, o)
	return c, c.KV()
}

func baseConfig(c *clustertest.Cluster, command string) Config {
	return Config{
		Command: command, Conn: c.Client(), Conns: []int{2}, Clients: []int{4}, Total: 200,
		RequestTimeout: 5 * time.Second, Iterations: 1, KeySize: 8, ValSize: 32,
		SessionOptions: SessionOptions{Consistency: "l", TxnOps: 1, RWRatio: 1, Limit: 100}, Watch: WatchOptions{Streams: 2, WatchersPerStream: 2, PutTotal: 50, PutRate: 500},
	}
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
	if n := clustertest.Count(t, cli, ""); n != 0 {
		t.Fatalf("%d keys left behind", n)
	}
	cfg.Keep, cfg.SequentialKeys, cfg.Prefix = true, true, "/kept/"
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := clustertest.Count(t, cli, "/kept/"); n != 200 {
		t.Fatalf("--keep --sequential-keys --total 200 left %d keys", n)
	}
	// The prefix is now in use: a second run must refuse and write nothing.
	_, err = Run(context.Background(), cfg)
	if !invalid.Is(err) || err.Error() != "Prefix /kept/ already holds 200 keys; choose an empty Prefix (etcdlab deletes its prefix when done)" {
		t.Fatalf("prefix in use: %v", err)
	}
	if n := clustertest.Count(t, cli, "/kept/"); n != 200 {
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
	if !invalid.Is(err) || !strings.Contains(err.Error(), "16 MiB quota") || !slices.Equal(invalid.As(err).Params(), []string{"Total", "ValSize"}) {
		t.Fatalf("err = %v", err)
	}
	if n := clustertest.Count(t, cli, ""); n != 0 {
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
		if n := clustertest.Count(t, cli, ""); n != 0 {
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
	// Interrupt once the client has completed a request (the run's own
	// progress says so): mid-run, keys to delete, and a count the result
	// must hold. A key visible on the server is not a request completed:
	// its response may still be in flight when the run stops, and then 0
	// requests is the right figure.
	cfg.Observers = append(cfg.Observers, &cancelAfterRequest{cancel: cancel})
	doc, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Runs[0].StoppedEarly != "interrupted" || doc.Runs[0].Requests == 0 {
		t.Fatalf("run: %q %d", doc.Runs[0].StoppedEarly, doc.Runs[0].Requests)
	}
	if n := clustertest.Count(t, cli, ""); n != 0 {
		t.Fatalf("%d keys left after Ctrl-C", n)
	}
}

// cancelAfterRequest cancels once a measured run has completed a request,
// by the run's own count (Progressor).
type cancelAfterRequest struct{ cancel context.CancelFunc }

func (o *cancelAfterRequest) BeginRun(context.Context, RunInfo)                   {}
func (o *cancelAfterRequest) EndRun(context.Context, RunInfo, *result.Run, error) {}
func (o *cancelAfterRequest) Progress(r RunInfo, done, _ int64) {
	if !r.Warmup && done > 0 {
		o.cancel()
	}
}

// TestValidate: every configuration that cannot run is invalid input that
// names the Config fields at fault, and nothing else is.
func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Config{Command: CmdPut, Conns: []int{1}, Clients: []int{1}, Total: 1, RequestTimeout: time.Second, Iterations: 1, KeySize: 8, SessionOptions: SessionOptions{Consistency: "l"}}
	for _, tt := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"clients 0", func(c *Config) { c.Clients = []int{0} }, "{Clients} must be at least 1, not 0"},
		{"conns 0", func(c *Config) { c.Conns = []int{1, 0} }, "{Conns} must be at least 1, not 0"},
		{"no conns", func(c *Config) { c.Conns = nil }, "{Conns} and {Clients} need at least one value"},
		{"key size 0", func(c *Config) { c.KeySize = 0 }, "{KeySize} must be at least 1, not 0"},
		{"val size -1", func(c *Config) { c.ValSize = -1 }, "{ValSize} must not be negative, not -1"},
		{"key space -1", func(c *Config) { c.KeySpaceSize = -1 }, "{KeySpaceSize} must not be negative, not -1"},
		{"key size too small", func(c *Config) { c.KeySize, c.KeySpaceSize = 1, 17 }, "{KeySize} 1 (hex digits) cannot name 17 distinct keys; raise {KeySize} or lower {KeySpaceSize}"},
		{"key size too small for total", func(c *Config) { c.KeySize, c.Total = 1, 17 }, "{KeySize} 1 (hex digits) cannot name 17 distinct keys ({KeySpaceSize} defaults to {Total}); raise {KeySize}, lower {Total} or give a smaller {KeySpaceSize}"},
		{"no total", func(c *Config) { c.Total = 0 }, "give {Total} or {Duration}"},
		{"negative duration", func(c *Config) { c.Duration = -time.Second }, "{Duration} must not be negative, not -1s"},
		{"negative rate", func(c *Config) { c.Rate = -1 }, "{Rate} must not be negative, not -1"},
		{"no request timeout", func(c *Config) { c.RequestTimeout = 0 }, "{RequestTimeout} must be positive, not 0s"},
		{"bad warmup", func(c *Config) { c.Warmup = "soon" }, `{Warmup} must be a request count (1000) or a duration (10s), not "soon"`},
		{"bad consistency", func(c *Config) { c.Consistency = "x" }, `{Consistency} must be l (linearizable) or s (serializable), not "x"`},
		{"txn ops 0", func(c *Config) { c.Command, c.TxnOps = CmdTxnPut, 0 }, "{TxnOps} must be at least 1, not 0"},
		{"txn ops past key space", func(c *Config) { c.Command, c.TxnOps, c.KeySpaceSize = CmdTxnPut, 3, 2 }, "{TxnOps} (3) must not exceed {KeySpaceSize} (2)"},
		{"negative rw ratio", func(c *Config) { c.Command, c.RWRatio = CmdTxnMixed, -1 }, "{RWRatio} must not be negative, not -1"},
		{"watch put rate 0", func(c *Config) {
			c.Command, c.Watch.Streams, c.Watch.WatchersPerStream, c.Watch.PutTotal = CmdWatchLatency, 1, 1, 1
		}, "{PutRate} must be at least 1, not 0"},
		{"bad engine", func(c *Config) { c.Engine = "fast" }, `{Engine} must be wire or grpc, not "fast"`},
		{"range without key", func(c *Config) { c.Command = CmdRange }, "range needs a key"},
		{"put with args", func(c *Config) { c.Args = []string{"k"} }, `put takes no arguments, got ["k"]`},
		{"unknown", func(c *Config) { c.Command = "mvcc" }, `unknown bench command "mvcc"`},
		{"iterations 0", func(c *Config) { c.Iterations = 0 }, "{Iterations} must be at least 1, not 0"},
		{"negative scrape interval", func(c *Config) { c.ScrapeInterval = -time.Second }, "{ScrapeInterval} must be 0 (off) or at least 100ms, not -1s"},
		{"scrape interval too short", func(c *Config) { c.ScrapeInterval = 10 * time.Millisecond }, "{ScrapeInterval} must be 0 (off) or at least 100ms, not 10ms"},
		{"metrics URLs of a local cluster", func(c *Config) { c.MetricsURLs = []string{"http://127.0.0.1:2381"} }, "{MetricsURLs} are for a cluster etcdlab did not start (with {Endpoints})"},
		{"bad metrics URL", func(c *Config) {
			c.Conn.Endpoints, c.MetricsURLs = []string{"127.0.0.1:1"}, []string{"127.0.0.1:2381"}
		}, `{MetricsURLs}: "127.0.0.1:2381" is not an http(s) URL`},
	} {
		c := ok
		tt.mod(&c)
		_, err := Run(context.Background(), c)
		e := invalid.As(err)
		if e == nil {
			t.Errorf("%s: %v is not invalid input", tt.name, err)
			continue
		}
		braces := e.Text(func(f string) string { return "{" + f + "}" })
		if !strings.HasPrefix(braces, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, braces, tt.want)
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

// TestUnreachableIsNotInvalid: a cluster that cannot be reached is an
// ordinary error, not invalid input.
func TestUnreachableIsNotInvalid(t *testing.T) {
	t.Parallel()
	cfg := Config{Command: CmdPut, Conns: []int{1}, Clients: []int{1}, Total: 1, RequestTimeout: time.Second, Iterations: 1, KeySize: 8, SessionOptions: SessionOptions{Consistency: "l"},
		Conn: etcdclient.Config{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: time.Second}}
	_, err := Run(context.Background(), cfg)
	if err == nil || invalid.Is(err) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("unreachable cluster: %v", err)
	}
}

// TestRunFailure: an error from a run, after keys may have been written, is
// never invalid input, whatever the layer below called it.
func TestRunFailure(t *testing.T) {
	t.Parallel()
	plain := errors.New("connection reset")
	for _, tt := range []struct {
		in   error
		same bool
	}{
		{nil, true},
		{plain, true},
		{invalid.Errorf("{Clients} must be at least 1, not %d", 0), false},
		{fmt.Errorf("run: %w", invalid.Errorf("{Total} is odd")), false},
	} {
		got := runFailure(tt.in)
		if invalid.Is(got) {
			t.Errorf("runFailure(%v) is still invalid input", tt.in)
		}
		if tt.same && got != tt.in {
			t.Errorf("runFailure(%v) = %v, want it unchanged", tt.in, got)
		}
		if tt.in != nil && got.Error() != tt.in.Error() {
			t.Errorf("runFailure changed the message: %q", got.Error())
		}
	}
}
