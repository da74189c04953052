package main

import (
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchOptions are the flags of `etcdlab bench` itself, which every
// subcommand inherits: etcd benchmark's global flags and etcdlab's own. One
// value belongs to one command tree; it is written by flag parsing and read
// by the subcommand that runs, on one goroutine.
type benchOptions struct {
	conn             etcdclient.Config
	conns, clients   []int
	targetLeader     bool
	precise, sample  bool
	autoSyncInterval time.Duration
	duration         time.Duration
	warmup           string
	iterations       int
	requestTimeout   time.Duration
	prefix           string
	keep, compact    bool
	members          int
	output           string
	quiet            bool
	cpuProfile       string
	engine           string
	canaryInterval   time.Duration
	pinEndpoints     bool
	metricsURLs      []string
	scrapeInterval   time.Duration
}

// register binds the options to bench's persistent flags, with their
// defaults: etcd benchmark v3.6's where it has the flag (tools/benchmark/cmd/
// root.go), except --dial-timeout (2s, not 0: a stuck cluster must give an
// error, not a hang) and --endpoints (none: start a local cluster).
func (o *benchOptions) register(pf *pflag.FlagSet) {
	addConnFlags(pf, &o.conn)
	pf.IntSliceVar(&o.conns, "conns", []int{1}, "total number of gRPC connections (a list sweeps: 1,10,100)")
	pf.IntSliceVar(&o.clients, "clients", []int{1}, "total number of concurrent clients (a list sweeps: 100,1000,10000)")
	pf.BoolVar(&o.targetLeader, "target-leader", false, "send all load to the leader")
	pf.BoolVar(&o.precise, "precise", false, "use full floating point precision")
	pf.BoolVar(&o.sample, "sample", false, "add per-second samples to the report")
	pf.DurationVar(&o.autoSyncInterval, "auto-sync-interval", 0, "accepted for compatibility; etcdlab does not re-sync endpoints")
	pf.DurationVar(&o.duration, "duration", 0, "run for this long instead of --total requests (with --total: whichever comes first)")
	pf.StringVar(&o.warmup, "warmup", "", "warm up first, excluded from results: a request count (1000) or a duration (10s)")
	pf.IntVar(&o.iterations, "iterations", 1, "measure this many times and report each and mean ± stddev")
	pf.DurationVar(&o.requestTimeout, "request-timeout", 10*time.Second, "deadline of each request; a slower one is an error")
	pf.StringVar(&o.prefix, "prefix", "", "key prefix for everything written (default /etcdlab/bench/<run-id>/)")
	pf.BoolVar(&o.keep, "keep", false, "keep the keys written (the prefix is printed)")
	pf.BoolVar(&o.compact, "compact", false, "compact the cluster after deleting the keys written")
	pf.IntVar(&o.members, "members", 3, "size of the local cluster started when --endpoints is not given")
	pf.StringVarP(&o.output, "output", "o", "text", "output: text (etcd benchmark's layout), json or csv")
	pf.BoolVar(&o.quiet, "quiet", false, "no progress bar")
	pf.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of etcdlab itself to this file")
	_ = pf.MarkHidden("cpuprofile")
	pf.StringVar(&o.engine, "engine", bench.EngineWire, "load engine: wire (etcdlab's asynchronous transport) or grpc (gRPC-go, a goroutine per client)")
	_ = pf.MarkHidden("engine")
	pf.DurationVar(&o.canaryInterval, "canary-interval", 100*time.Millisecond,
		"measure the cluster's unavailability apart from the clients: one request of the workload's kind to each member this often (0: off)")
	pf.BoolVar(&o.pinEndpoints, "pin-endpoints", false,
		"keep each connection on its endpoint while its member is down, as etcd benchmark v3.6 (default: its requests fail over to live members)")
	pf.StringSliceVar(&o.metricsURLs, "metrics-urls", nil, "members' metrics URLs on a cluster etcdlab did not start (default: the client endpoints)")
	pf.DurationVar(&o.scrapeInterval, "scrape-interval", time.Second, "scrape every member's /metrics this often during each measured run, for the server-side series (0: off)")
}

// benchWorkload is one bench subcommand's own options.
type benchWorkload interface {
	// register binds the options to the subcommand's flags, with etcd
	// benchmark v3.6's defaults unless etcdlab deliberately differs.
	register(fl *pflag.FlagSet)
	// apply copies the options into cfg.
	apply(cfg *bench.Config)
}

// benchCommand is `etcdlab bench`: its own options, which every subcommand
// inherits, and each subcommand's workload options, one struct per
// subcommand so that no subcommand's defaults leak into another's.
type benchCommand struct {
	opts      benchOptions
	workloads map[string]benchWorkload // by subcommand name, which is bench's command
	cmd       *cobra.Command
}

func (a *app) benchCmd() *cobra.Command { return a.newBench().cmd }

// newBench builds `etcdlab bench` and its subcommands.
func (a *app) newBench() *benchCommand {
	b := &benchCommand{workloads: map[string]benchWorkload{}}
	b.cmd = &cobra.Command{
		Use:   "bench",
		Short: "Load etcd with etcd benchmark's command lines, measured honestly",
		Long: `Runs etcd benchmark's workloads (put, range, txn-put, txn-mixed, watch-latency,
lease-keepalive) with its flags and defaults, and prints its report layout.
What differs, on purpose:

  - Without --endpoints, a local 3-member cluster is started for the run and
    removed afterwards (etcd benchmark would dial 127.0.0.1:2379).
  - --key-space-size defaults to --total (etcd benchmark's default of 1 writes
    every request to one key, even with --sequential-keys).
  - Keys are printable: --prefix (default /etcdlab/bench/<run-id>/) followed
    by --key-size hex digits. On a cluster etcdlab did not start, the prefix
    must be empty, the run must fit in half the quota, and the keys are
    deleted at the end, also on Ctrl-C (--keep keeps them).
  - Every request has a deadline (--request-timeout, default 10s) and
    --dial-timeout defaults to 2s: a stuck cluster gives errors, never a hang.
    --target-leader fails within the dial timeout if the leader is unreachable.
  - Latencies go into HDR histograms (1 µs to 60 s, 3 significant digits),
    not a slice of every sample: memory stays bounded.
  - --rate makes the run open loop: requests are sent at their scheduled
    times and latency is measured from then (no coordinated omission);
    service time is reported too. Without --rate the loop is closed, as in
    etcd benchmark.
  - --duration, --warmup, --iterations, and lists in --clients/--conns
    (sweeps); -o json and -o csv.`,
		Example: `  # the multi-cloud article's command, against a cluster from 'etcdlab cluster up --tls'
  etcdlab bench --endpoints=$EP --target-leader --conns=1 --clients=1 put --key-size=8 --sequential-keys \
      --total=10000 --val-size=256 --cacert .etcdlab/ca.crt --cert .etcdlab/client.crt --key .etcdlab/client.key

  # the Graviton article: 100 conns, 1000 clients, 20 warm-up + 20 measured iterations
  etcdlab bench --conns=100 --clients=1000 --warmup=100000 --iterations=20 put --key-size=8 --val-size=256 \
      --total=100000 --key-space-size=100000 -o json > m6g.json

  # the PMEM article's client sweep, open loop at 5000 writes/s for 30 s each
  etcdlab bench --conns=50 --clients=100,1000,10000 --duration=30s put --rate=5000`,
		Args: groupArgs,
		RunE: helpRun,
		// bench.Config fields whose flags are not their kebab-case names,
		// for invalid-input errors (see flagNamer).
		Annotations: map[string]string{
			"param:LocalMembers": "--members",
			"param:PrevKV":       "--prevkv",
			"param:CheckHashKV":  "--check-hashkv",
			"param:Canary":       "--canary-interval",
			"param:MetricsURLs":  "--metrics-urls",
		},
	}
	pf := b.cmd.PersistentFlags()
	pf.SortFlags = false
	b.opts.register(pf)
	for _, s := range []struct {
		command, use, short string
		args                cobra.PositionalArgs
		w                   benchWorkload
	}{
		{bench.CmdPut, "put", "Benchmark put", noArgs, &putOptions{}},
		{bench.CmdRange, "range key [end-range]", "Benchmark range", cobra.RangeArgs(0, 2), &rangeOptions{}},
		{bench.CmdTxnPut, "txn-put", "Benchmark txn-put", noArgs, &txnPutOptions{}},
		{bench.CmdTxnMixed, "txn-mixed key [end-range]", "Benchmark a mixed load of txn-put & txn-range", cobra.RangeArgs(0, 2), &txnMixedOptions{}},
		{bench.CmdLeaseKeepalive, "lease-keepalive", "Benchmark lease keepalive", noArgs, &leaseOptions{}},
		{bench.CmdWatchLatency, "watch-latency", "Benchmark watch latency", noArgs, &watchLatencyOptions{}},
	} {
		c := &cobra.Command{
			Use: s.use, Short: s.short, Args: s.args,
			RunE: func(c *cobra.Command, argv []string) error {
				return a.runBench(c, &b.opts, b.config(c, argv))
			},
		}
		c.Flags().SortFlags = false
		s.w.register(c.Flags())
		b.workloads[s.command] = s.w
		b.cmd.AddCommand(c)
	}
	return b
}

// config builds the bench.Config that subcommand c's parsed command line
// asks for, from bench's options and c's own; nothing runs. args are c's
// positional arguments.
func (b *benchCommand) config(c *cobra.Command, args []string) bench.Config {
	o := &b.opts
	cfg := bench.Config{
		Command: c.Name(), Conn: o.conn, TargetLeader: o.targetLeader, Conns: o.conns, Clients: o.clients,
		Duration: o.duration, RequestTimeout: o.requestTimeout, Warmup: o.warmup, Iterations: o.iterations,
		Prefix: o.prefix, Keep: o.keep, Compact: o.compact, LocalMembers: o.members, Engine: o.engine,
		Canary: o.canaryInterval, PinEndpoints: o.pinEndpoints, ScrapeInterval: o.scrapeInterval, MetricsURLs: o.metricsURLs,
		Consistency: "l", // bench checks it for every command; only range and txn-mixed have the flag
	}
	if len(args) > 0 {
		cfg.Args = args
	}
	b.workloads[c.Name()].apply(&cfg)
	if c.Flags().Changed("duration") && !c.Flags().Changed("total") {
		cfg.Total = 0 // --duration alone bounds the run by time
	}
	if cfg.Conn.DialTimeout <= 0 {
		cfg.Conn.DialTimeout = etcdclient.DefaultDialTimeout
	}
	return cfg
}
