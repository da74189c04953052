package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// benchFlags holds the flags of `etcdlab bench` and its subcommands.
type benchFlags struct {
	cfg        bench.Config
	precise    bool
	sample     bool
	output     string
	quiet      bool
	autoSync   time.Duration
	cpuProfile string
}

func (a *app) benchCmd() *cobra.Command {
	f := &benchFlags{}
	c := &cobra.Command{
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
	}
	pf := c.PersistentFlags()
	pf.SortFlags = false
	f.cfg.Conns, f.cfg.Clients = []int{1}, []int{1}
	addConnFlags(pf, &f.cfg.Conn)
	pf.IntSliceVar(&f.cfg.Conns, "conns", []int{1}, "total number of gRPC connections (a list sweeps: 1,10,100)")
	pf.IntSliceVar(&f.cfg.Clients, "clients", []int{1}, "total number of concurrent clients (a list sweeps: 100,1000,10000)")
	pf.BoolVar(&f.cfg.TargetLeader, "target-leader", false, "send all load to the leader")
	pf.BoolVar(&f.precise, "precise", false, "use full floating point precision")
	pf.BoolVar(&f.sample, "sample", false, "add per-second samples to the report")
	pf.DurationVar(&f.autoSync, "auto-sync-interval", 0, "accepted for compatibility; etcdlab does not re-sync endpoints")
	pf.DurationVar(&f.cfg.Duration, "duration", 0, "run for this long instead of --total requests (with --total: whichever comes first)")
	pf.StringVar(&f.cfg.Warmup, "warmup", "", "warm up first, excluded from results: a request count (1000) or a duration (10s)")
	pf.IntVar(&f.cfg.Iterations, "iterations", 1, "measure this many times and report each and mean ± stddev")
	pf.DurationVar(&f.cfg.RequestTimeout, "request-timeout", 10*time.Second, "deadline of each request; a slower one is an error")
	pf.StringVar(&f.cfg.Prefix, "prefix", "", "key prefix for everything written (default /etcdlab/bench/<run-id>/)")
	pf.BoolVar(&f.cfg.Keep, "keep", false, "keep the keys written (the prefix is printed)")
	pf.BoolVar(&f.cfg.Compact, "compact", false, "compact the cluster after deleting the keys written")
	pf.IntVar(&f.cfg.LocalMembers, "members", 3, "size of the local cluster started when --endpoints is not given")
	pf.StringVarP(&f.output, "output", "o", "text", "output: text (etcd benchmark's layout), json or csv")
	pf.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	pf.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of etcdlab itself to this file")
	_ = pf.MarkHidden("cpuprofile")
	pf.StringVar(&f.cfg.Engine, "engine", bench.EngineWire, "load engine: wire (etcdlab's asynchronous transport) or grpc (gRPC-go, a goroutine per client)")
	_ = pf.MarkHidden("engine")
	c.AddCommand(
		a.benchPutCmd(f), a.benchRangeCmd(f), a.benchTxnPutCmd(f), a.benchTxnMixedCmd(f),
		a.benchLeaseCmd(f), a.benchWatchLatencyCmd(f),
	)
	return c
}

// benchSub builds a subcommand that runs command with its own flags.
func (a *app) benchSub(f *benchFlags, command, use, short string, args cobra.PositionalArgs, flags func(*pflag.FlagSet)) *cobra.Command {
	c := &cobra.Command{
		Use: use, Short: short, Args: args,
		RunE: func(c *cobra.Command, argv []string) error {
			cfg := f.cfg
			cfg.Command, cfg.Args = command, argv
			return a.runBench(c, f, cfg)
		},
	}
	c.Flags().SortFlags = false
	flags(c.Flags())
	return c
}

func keyFlags(fl *pflag.FlagSet, cfg *bench.Config, keySize, valSize int) {
	fl.IntVar(&cfg.KeySize, "key-size", keySize, "key size (hex digits after --prefix)")
	fl.IntVar(&cfg.ValSize, "val-size", valSize, "value size in bytes")
	fl.Int64Var(&cfg.KeySpaceSize, "key-space-size", 0, "number of distinct keys (default: --total; etcd benchmark's default is 1)")
}

func totalRate(fl *pflag.FlagSet, cfg *bench.Config, what string) {
	fl.Int64Var(&cfg.Total, "total", 10000, "total number of "+what)
	fl.Float64Var(&cfg.Rate, "rate", 0, "open loop at this many "+what+" per second (0: closed loop, as fast as the clients go)")
}

func (a *app) benchPutCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdPut, "put", "Benchmark put", noArgs, func(fl *pflag.FlagSet) {
		keyFlags(fl, &f.cfg, 8, 8)
		totalRate(fl, &f.cfg, "put requests")
		fl.BoolVar(&f.cfg.SequentialKeys, "sequential-keys", false, "use sequential keys")
		fl.DurationVar(&f.cfg.CompactInterval, "compact-interval", 0, "compact the database at this interval during the run")
		fl.Int64Var(&f.cfg.CompactIndexDelta, "compact-index-delta", 1000, "delta between current revision and compact revision")
		fl.BoolVar(&f.cfg.CheckHashKV, "check-hashkv", false, "report the KV hash of the first endpoint after the run")
	})
}

func (a *app) benchRangeCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdRange, "range key [end-range]", "Benchmark range", cobra.RangeArgs(0, 2), func(fl *pflag.FlagSet) {
		totalRate(fl, &f.cfg, "range requests")
		fl.StringVar(&f.cfg.Consistency, "consistency", "l", "Linearizable(l) or Serializable(s)")
		fl.Int64Var(&f.cfg.Limit, "limit", 0, "maximum number of results per range request (0 is no limit)")
		fl.BoolVar(&f.cfg.CountOnly, "count-only", false, "only return the count of keys")
	})
}

func (a *app) benchTxnPutCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdTxnPut, "txn-put", "Benchmark txn-put", noArgs, func(fl *pflag.FlagSet) {
		keyFlags(fl, &f.cfg, 8, 8)
		totalRate(fl, &f.cfg, "txn requests")
		fl.IntVar(&f.cfg.TxnOps, "txn-ops", 1, "number of puts per txn")
	})
}

func (a *app) benchTxnMixedCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdTxnMixed, "txn-mixed key [end-range]", "Benchmark a mixed load of txn-put & txn-range", cobra.RangeArgs(0, 2), func(fl *pflag.FlagSet) {
		keyFlags(fl, &f.cfg, 8, 8)
		totalRate(fl, &f.cfg, "txn requests")
		fl.StringVar(&f.cfg.EndKey, "end-key", "", "read operation range end key (default: the end of --prefix)")
		fl.Int64Var(&f.cfg.Limit, "limit", 1000, "read operation range result limit")
		fl.StringVar(&f.cfg.Consistency, "consistency", "l", "Linearizable(l) or Serializable(s)")
		fl.Float64Var(&f.cfg.RWRatio, "rw-ratio", 1, "read/write ops ratio")
	})
}

func (a *app) benchLeaseCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdLeaseKeepalive, "lease-keepalive", "Benchmark lease keepalive", noArgs, func(fl *pflag.FlagSet) {
		fl.Int64Var(&f.cfg.Total, "total", 10000, "total number of lease keepalive requests")
	})
}

func (a *app) benchWatchLatencyCmd(f *benchFlags) *cobra.Command {
	return a.benchSub(f, bench.CmdWatchLatency, "watch-latency", "Benchmark watch latency", noArgs, func(fl *pflag.FlagSet) {
		fl.IntVar(&f.cfg.Streams, "streams", 10, "total watch streams")
		fl.IntVar(&f.cfg.WatchersPerStream, "watchers-per-stream", 10, "total watchers per stream")
		fl.BoolVar(&f.cfg.PrevKV, "prevkv", false, "PrevKV enabled on watch requests")
		fl.IntVar(&f.cfg.PutTotal, "put-total", 1000, "total number of put requests")
		fl.IntVar(&f.cfg.PutRate, "put-rate", 100, "number of keys to put per second")
		fl.IntVar(&f.cfg.KeySize, "key-size", 32, "accepted for compatibility (the watched key is --prefix + \"watch\")")
		fl.IntVar(&f.cfg.ValSize, "val-size", 32, "value size of watch response")
	})
}

func (a *app) runBench(c *cobra.Command, f *benchFlags, cfg bench.Config) error {
	if f.output != "text" && f.output != "json" && f.output != "csv" {
		return exitcode.Usagef("-o must be text, json or csv, not %q", f.output)
	}
	if cfg.Consistency == "" {
		cfg.Consistency = "l"
	}
	if cfg.Command == bench.CmdWatchLatency {
		cfg.Total = int64(cfg.PutTotal)
	}
	if c.Flags().Changed("duration") && !c.Flags().Changed("total") {
		cfg.Total = 0 // --duration alone bounds the run by time
	}
	if cfg.Conn.DialTimeout <= 0 {
		cfg.Conn.DialTimeout = etcdclient.DefaultDialTimeout
	}
	cfg.Log = a.stderr
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return exitcode.Failuref("--cpuprofile: %v", err)
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return exitcode.Failuref("--cpuprofile: %v", err)
		}
		defer pprof.StopCPUProfile()
	}
	if !f.quiet && isTerminal(a.stderr) {
		cfg.Progress = progressBar(a.stderr)
	}
	doc, err := bench.Run(c.Context(), cfg)
	if cfg.Progress != nil {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	if doc != nil {
		for _, n := range doc.Notes {
			fmt.Fprintln(a.stderr, "note:", n)
		}
		if werr := a.writeBench(doc, f); werr != nil {
			return werr
		}
	}
	if err != nil {
		return err
	}
	if c.Context().Err() != nil {
		return exitcode.Failuref("interrupted: the results above are partial")
	}
	return nil
}

func (a *app) writeBench(doc *result.Document, f *benchFlags) error {
	switch f.output {
	case "json":
		return result.Write(a.stdout, doc)
	case "csv":
		return render.BenchCSV(a.stdout, doc)
	}
	return render.BenchText(a.stdout, doc, render.TextOptions{Precise: f.precise, Sample: f.sample})
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBar redraws one line on a terminal.
func progressBar(w any) func(label string, done, total int64) {
	out := w.(*os.File)
	return func(label string, done, total int64) {
		if total > 0 {
			pct := float64(done) / float64(total)
			n := int(pct * 30)
			fmt.Fprintf(out, "\r\033[K%s [%-30s] %3.0f%% %d/%d", label, bar(n), pct*100, done, total)
			return
		}
		fmt.Fprintf(out, "\r\033[K%s %d requests", label, done)
	}
}

func bar(n int) string {
	b := make([]byte, max(0, min(n, 30)))
	for i := range b {
		b[i] = '='
	}
	return string(b)
}
