package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// parseBench parses an `etcdlab bench` command line (without "bench") as
// the CLI does and returns the subcommand and the bench.Config it builds,
// without running anything.
func parseBench(t *testing.T, args ...string) (*cobra.Command, bench.Config) {
	t.Helper()
	b := (&app{stdout: io.Discard, stderr: io.Discard}).newBench()
	c, rest, err := b.cmd.Find(args)
	if err != nil || c == b.cmd {
		t.Fatalf("%q: no subcommand (%v)", args, err)
	}
	if err := c.ParseFlags(rest); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if err := c.ValidateArgs(c.Flags().Args()); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return c, b.commandLine(c, c.Flags().Args()).Config
}

// TestBenchDefaults pins every bench subcommand's flag defaults, and the
// bench.Config a command line without subcommand flags builds, to etcd
// benchmark v3.6's (go.etcd.io/etcd/v3 v3.6.8, tools/benchmark/cmd/*.go),
// except where etcdlab deliberately differs, listed below with the reason.
// Each subcommand has its own options, so one subcommand's defaults cannot
// leak into another's (put once ran with watch-latency's 32-byte keys).
func TestBenchDefaults(t *testing.T) {
	t.Parallel()
	// etcd benchmark v3.6's flags and defaults, as pflag prints them.
	// root.go: the persistent flags every subcommand inherits.
	etcdRoot := map[string]string{
		"endpoints":                "[127.0.0.1:2379]",
		"conns":                    "1", // UintVar
		"clients":                  "1", // UintVar
		"precise":                  "false",
		"sample":                   "false",
		"cert":                     "",
		"key":                      "",
		"cacert":                   "",
		"insecure-skip-tls-verify": "false",
		"user":                     "",
		"dial-timeout":             "0s",
		"target-leader":            "false",
		"auto-sync-interval":       "0s",
	}
	etcdSub := map[string]map[string]string{
		// put.go
		bench.CmdPut: {"key-size": "8", "val-size": "8", "rate": "0", "total": "10000", "key-space-size": "1",
			"sequential-keys": "false", "compact-interval": "0s", "compact-index-delta": "1000", "check-hashkv": "false"},
		// range.go
		bench.CmdRange: {"rate": "0", "total": "10000", "consistency": "l", "limit": "0", "count-only": "false"},
		// txn_put.go
		bench.CmdTxnPut: {"key-size": "8", "val-size": "8", "txn-ops": "1", "rate": "0", "total": "10000", "key-space-size": "1"},
		// txn_mixed.go
		bench.CmdTxnMixed: {"key-size": "8", "val-size": "8", "rate": "0", "total": "10000", "end-key": "", "limit": "1000",
			"key-space-size": "1", "consistency": "l", "rw-ratio": "1"},
		// lease.go
		bench.CmdLeaseKeepalive: {"total": "10000"},
		// watch_latency.go
		bench.CmdWatchLatency: {"streams": "10", "watchers-per-stream": "10", "prevkv": "false", "put-total": "1000",
			"put-rate": "100", "key-size": "32", "val-size": "32"},
	}
	// Where etcdlab deliberately differs from etcd benchmark, with the
	// reason (README, "Where etcd benchmark's behaviour is a trap", and
	// bench --help).
	differs := map[string]struct{ def, why string }{
		"endpoints":      {"[]", "no --endpoints starts a local cluster for the run (etcd benchmark dials 127.0.0.1:2379)"},
		"dial-timeout":   {"2s", "a stuck cluster gives an error, not a hang (etcd benchmark: 0, no timeout)"},
		"key-space-size": {"0", "0 means as many keys as --total (etcd benchmark's 1 writes every request to one key)"},
	}
	// etcdlab's own flags, which etcd benchmark does not have.
	own := map[string]string{
		"request-timeout": "10s", // README: etcd benchmark has no request deadline
		"duration":        "0s",
		"warmup":          "",
		"iterations":      "1",
		"prefix":          "",
		"keep":            "false",
		"compact":         "false",
		"members":         "3",
		"output":          "text",
		"quiet":           "false",
		"cpuprofile":      "",
		"report-perfdash": "false", // etcd benchmark v3.7's flag (#20151), absent from v3.6: docs/bench.md
		"cpus":            "0",     // etcdlab's GOMAXPROCS; kube's default 1 is applied in CommandLine
		"load-cpus":       "0",     // the load generator's CPU budget, none by default (issue 24)
		"engine":          bench.EngineWire,
		"canary-interval": "100ms", // docs/bench.md: cluster unavailability apart from the clients
		"pin-endpoints":   "false", // docs/bench.md: failover is etcd client v3.7's model
		"metrics-urls":    "[]",    // the members' metrics, scraped during the run (issue 14)
		"scrape-interval": "1s",
		"agents":          "0", // docs/agents.md: the load split over agent processes (issue 17)
		"agent-start-at":  "",
		"agent-wait":      "5m0s",
		"listen-metrics":  "", // etcdlab's own metrics while it runs (issue 17, docs/metrics.md)
	}

	// The bench.Config each subcommand builds from those defaults.
	base := bench.Config{
		Conn:           etcdclient.Config{DialTimeout: 2 * time.Second}, // differs: --dial-timeout, --endpoints
		Conns:          []int{1},
		Clients:        []int{1},
		RequestTimeout: 10 * time.Second,
		Iterations:     1,
		LocalMembers:   3,
		Engine:         bench.EngineWire,
		SessionOptions: bench.SessionOptions{Consistency: "l"},
		Canary:         100 * time.Millisecond,
		ScrapeInterval: time.Second,
		Agent:          bench.Agent{Wait: bench.DefaultAgentWait},
	}
	with := func(f func(*bench.Config)) bench.Config {
		c := base
		f(&c)
		return c
	}
	for _, tt := range []struct {
		args []string
		want bench.Config
	}{
		{[]string{"put"}, with(func(c *bench.Config) {
			c.Command, c.KeySize, c.ValSize, c.Total, c.CompactIndexDelta = bench.CmdPut, 8, 8, 10000, 1000
			c.KeySpaceSize = 0 // differs: --key-space-size
		})},
		{[]string{"range", "/k"}, with(func(c *bench.Config) {
			c.Command, c.Args, c.Total, c.Limit, c.Consistency = bench.CmdRange, []string{"/k"}, 10000, 0, "l"
		})},
		{[]string{"txn-put"}, with(func(c *bench.Config) {
			c.Command, c.KeySize, c.ValSize, c.TxnOps, c.Total = bench.CmdTxnPut, 8, 8, 1, 10000
		})},
		{[]string{"txn-mixed"}, with(func(c *bench.Config) {
			c.Command, c.KeySize, c.ValSize, c.Total, c.Limit, c.Consistency, c.RWRatio = bench.CmdTxnMixed, 8, 8, 10000, 1000, "l", 1
		})},
		{[]string{"lease-keepalive"}, with(func(c *bench.Config) {
			c.Command, c.Total = bench.CmdLeaseKeepalive, 10000
		})},
		{[]string{"watch-latency"}, with(func(c *bench.Config) {
			c.Command, c.KeySize, c.ValSize = bench.CmdWatchLatency, 32, 32
			c.Watch = bench.WatchOptions{Streams: 10, WatchersPerStream: 10, PutTotal: 1000, PutRate: 100}
			c.Total = 1000 // etcdlab counts the run's requests: its --put-total puts
		})},
	} {
		t.Run(tt.args[0], func(t *testing.T) {
			t.Parallel()
			c, cfg := parseBench(t, tt.args...)
			want := map[string]string{}
			for k, v := range etcdRoot {
				want[k] = v
			}
			for k, v := range etcdSub[c.Name()] {
				want[k] = v
			}
			for k, d := range differs {
				if _, ok := want[k]; ok {
					want[k] = d.def
				}
			}
			for k, v := range own {
				want[k] = v
			}
			got := map[string]string{}
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if f.Name != "help" {
					got[f.Name] = defValue(f)
				}
			})
			for _, name := range sortedKeys(want, got) {
				w, inWant := want[name]
				g, inGot := got[name]
				switch {
				case !inGot:
					t.Errorf("--%s: etcdlab has no such flag", name)
				case !inWant:
					t.Errorf("--%s: a flag that is neither etcd benchmark's nor listed as etcdlab's own", name)
				case g != w:
					t.Errorf("--%s defaults to %q, want %q", name, g, w)
				}
			}
			for _, f := range diffFields(cfg, tt.want) {
				t.Errorf("bench.Config.%s", f)
			}
		})
	}
}

// defValue is f's default as etcd benchmark would print it: its --conns and
// --clients are single numbers where etcdlab's are lists.
func defValue(f *pflag.Flag) string {
	if f.Value.Type() == "intSlice" {
		return strings.TrimSuffix(strings.TrimPrefix(f.DefValue, "["), "]")
	}
	return f.DefValue
}

func sortedKeys(ms ...map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// diffFields names the fields of two configs that differ, with both values.
func diffFields(got, want bench.Config) []string {
	var out []string
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		if g.Field(i).Kind() == reflect.Func {
			if !g.Field(i).IsNil() {
				out = append(out, name+" is set")
			}
			continue
		}
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			out = append(out, name+" = "+fmtValue(g.Field(i))+", want "+fmtValue(w.Field(i)))
		}
	}
	return out
}

func fmtValue(v reflect.Value) string {
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return v.String()
	}
	return string(b)
}

// TestBenchConfigFromFlags: flags reach the bench.Config of the subcommand
// they were given to, and --duration alone bounds a run by time.
func TestBenchConfigFromFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args  []string
		check func(bench.Config) bool
	}{
		{[]string{"--clients", "2,4", "--conns=3", "put", "--val-size", "16", "--key-space-size=5"}, func(c bench.Config) bool {
			return reflect.DeepEqual(c.Clients, []int{2, 4}) && reflect.DeepEqual(c.Conns, []int{3}) && c.ValSize == 16 && c.KeySize == 8 && c.KeySpaceSize == 5
		}},
		{[]string{"--duration", "10s", "put"}, func(c bench.Config) bool { return c.Total == 0 && c.Duration == 10*time.Second }},
		{[]string{"--duration", "10s", "put", "--total", "5"}, func(c bench.Config) bool { return c.Total == 5 }},
		{[]string{"--dial-timeout", "0", "put"}, func(c bench.Config) bool { return c.Conn.DialTimeout == etcdclient.DefaultDialTimeout }},
		{[]string{"range", "a", "b", "--consistency", "s", "--limit", "7", "--count-only"}, func(c bench.Config) bool {
			return reflect.DeepEqual(c.Args, []string{"a", "b"}) && c.Consistency == "s" && c.Limit == 7 && c.CountOnly
		}},
		{[]string{"txn-mixed", "--rw-ratio", "3", "--end-key", "z"}, func(c bench.Config) bool { return c.RWRatio == 3 && c.EndKey == "z" && c.Limit == 1000 }},
		{[]string{"watch-latency", "--put-total", "50", "--prevkv"}, func(c bench.Config) bool { return c.Watch.PutTotal == 50 && c.Total == 50 && c.Watch.PrevKV }},
		{[]string{"--members", "1", "--prefix", "/p/", "--keep", "lease-keepalive", "--total", "9"}, func(c bench.Config) bool {
			return c.LocalMembers == 1 && c.Prefix == "/p/" && c.Keep && c.Total == 9
		}},
	} {
		if _, cfg := parseBench(t, tt.args...); !tt.check(cfg) {
			t.Errorf("%q: %+v", tt.args, cfg)
		}
	}
}

// TestBenchParamNames: every bench.Config field an invalid-input error can
// name is rendered as a flag of some bench subcommand.
func TestBenchParamNames(t *testing.T) {
	t.Parallel()
	notFlags := map[string]bool{"Command": true, "Args": true, "Conn": true, "LocalBaseDir": true, "Log": true, "Cluster": true,
		"Kube":           true, // bench kube's options, whose fields are its flags (TestKubeFlagNames)
		"KubeReal":       true, // the real control plane's: --kube-version, --state-file (and Dir, the library's)
		"Engines":        true, // the engines the caller offers (engines.All)
		"Watch":          true, // watch-latency's options, whose fields are checked below
		"Replay":         true, // bench replay's options, whose fields are checked below
		"SessionOptions": true, // the sessions' options, whose fields are checked below
		"Observers":      true, // what the caller has follow the runs (the CLI: live metrics from --listen-metrics, progress)
		"Path":           true, // bench replay's argument
		"TargetMember":   true, // the maintenance job's load pinned to each member (a person gives --endpoints with that member's URL)
		"Profile":        true} // the profile Path holds, read by Validate
	b := (&app{stdout: io.Discard, stderr: io.Discard}).newBench()
	var fields []string
	for _, typ := range []reflect.Type{reflect.TypeFor[bench.Config](), reflect.TypeFor[bench.WatchOptions](), reflect.TypeFor[bench.SessionOptions](), reflect.TypeFor[bench.ReplayOptions]()} {
		for i := range typ.NumField() {
			fields = append(fields, typ.Field(i).Name)
		}
	}
	for _, field := range fields {
		if notFlags[field] {
			continue
		}
		found := false
		for _, c := range b.cmd.Commands() {
			name := flagNamer(c)(field)
			if name != "" && (c.Flags().Lookup(strings.TrimPrefix(name, "--")) != nil || c.InheritedFlags().Lookup(strings.TrimPrefix(name, "--")) != nil) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("bench.Config.%s is not rendered as any subcommand's flag: add a param:%s annotation", field, field)
		}
	}
}

// TestBenchPutDefaultsRecorded runs `etcdlab bench --members 1 -o json put
// --total=100` and checks that the result records etcd benchmark's 8-byte
// keys and values.
func TestBenchPutDefaultsRecorded(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"bench", "--members", "1", "-o", "json", "put", "--total=100"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var doc struct {
		Bench struct {
			Workload struct {
				KeySize int `json:"key_size"`
				ValSize int `json:"val_size"`
			} `json:"workload"`
		} `json:"bench"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if w := doc.Bench.Workload; w.KeySize != 8 || w.ValSize != 8 {
		t.Fatalf("recorded key_size %d, val_size %d; etcd benchmark's defaults are 8 and 8", w.KeySize, w.ValSize)
	}
}

// TestParseArgsSameAsCLI: bench.ParseArgs, which experiment files use,
// builds the same Config and output options from a line as the CLI's
// cobra commands, so a line means one thing wherever it is written.
func TestParseArgsSameAsCLI(t *testing.T) {
	t.Parallel()
	for _, line := range [][]string{
		{"put"}, {"range", "/k"}, {"txn-put"}, {"txn-mixed"}, {"lease-keepalive"}, {"watch-latency"},
		{"--clients", "2,4", "--conns=3", "put", "--val-size", "16", "--key-space-size=5"},
		{"--duration", "10s", "put"},
		{"--duration", "10s", "put", "--total", "5"},
		{"--dial-timeout", "0", "put"},
		{"range", "a", "b", "--consistency", "s", "--limit", "7", "--count-only"},
		{"txn-mixed", "--rw-ratio", "3", "--end-key", "z"},
		{"watch-latency", "--put-total", "50", "--prevkv"},
		{"--members", "1", "--prefix", "/p/", "--keep", "lease-keepalive", "--total", "9"},
		{"--endpoints=127.0.0.1:2379", "--target-leader", "--conns=1", "--clients=1", "put", "--key-size=8", "--sequential-keys",
			"--total=10000", "--val-size=256", "--cacert", "ca.crt", "--cert", "peer.crt", "--key", "peer.key"},
		{"-o", "json", "--precise", "--warmup=1000", "--iterations=3", "--endpoints=a:2379", "put", "--metrics-urls", "http://a/metrics", "--scrape-interval=2s"},
	} {
		c, want := parseBench(t, line...)
		got, err := bench.ParseArgs(line)
		if err != nil {
			t.Errorf("%q: %v", line, err)
			continue
		}
		for _, f := range diffFields(got.Config, want) {
			t.Errorf("%q: bench.Config.%s", line, f)
		}
		b := (&app{stdout: io.Discard, stderr: io.Discard}).newBench()
		sub, rest, _ := b.cmd.Find(line)
		_ = sub.ParseFlags(rest)
		if wantOut := b.commandLine(sub, sub.Flags().Args()).Output; got.Output != wantOut {
			t.Errorf("%q: output %+v, the CLI's %+v (%s)", line, got.Output, wantOut, c.Name())
		}
	}
}

// TestKubeFlagNames: every option bench kube's errors name is a flag of
// bench kube.
func TestKubeFlagNames(t *testing.T) {
	t.Parallel()
	b := (&app{stdout: io.Discard, stderr: io.Discard}).newBench()
	var kube *cobra.Command
	for _, c := range b.cmd.Commands() {
		if c.Name() == bench.CmdKube {
			kube = c
		}
	}
	if kube == nil {
		t.Fatal("no bench kube")
	}
	for _, field := range []string{"Deployments", "Replicas", "Nodes", "PodsPerNode", "Steady", "Duration", "ImagePull", "ContainerStart", "ReadyTimeout",
		"Apiservers", "ControllerManagerQPS", "ControllerManagerBurst", "SchedulerQPS", "SchedulerBurst", "KubeletQPS", "KubeletBurst",
		"ConcurrentDeploymentSyncs", "ConcurrentReplicasetSyncs"} {
		name := strings.TrimPrefix(flagNamer(kube)(field), "--")
		if kube.Flags().Lookup(name) == nil && kube.InheritedFlags().Lookup(name) == nil {
			t.Errorf("{%s} renders as --%s, which bench kube does not have", field, name)
		}
	}
}
