package main

import (
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/cobra"
)

// benchCommand is `etcdlab bench`: the cobra commands over bench's
// command-line options (bench.Flags, shared with experiment files, so that
// both parse a line the same way).
type benchCommand struct {
	flags *bench.Flags
	cmd   *cobra.Command
}

func (a *app) benchCmd() *cobra.Command { return a.newBench().cmd }

// newBench builds `etcdlab bench` and its subcommands.
func (a *app) newBench() *benchCommand {
	b := &benchCommand{flags: bench.NewFlags()}
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
		Annotations: map[string]string{},
	}
	for field, flag := range bench.FlagNames() {
		b.cmd.Annotations["param:"+field] = flag
	}
	pf := b.cmd.PersistentFlags()
	pf.SortFlags = false
	b.flags.RegisterGlobal(pf)
	for _, s := range bench.Subcommands() {
		args := usageArgs(s)
		if s.MaxArgs == 0 {
			args = noArgs
		}
		c := &cobra.Command{
			Use: s.Use, Short: s.Short, Args: args,
			RunE: func(c *cobra.Command, argv []string) error {
				cl := b.commandLine(c, argv)
				if err := b.validate(c, argv, cl); err != nil {
					return err
				}
				return a.runBench(c, cl.Output, cl.Config)
			},
		}
		c.Flags().SortFlags = false
		b.flags.RegisterSubcommand(s.Name, c.Flags())
		b.cmd.AddCommand(c)
	}
	return b
}

// commandLine is what subcommand c's parsed command line asks for; args
// are c's positional arguments. Nothing runs.
func (b *benchCommand) commandLine(c *cobra.Command, args []string) bench.CommandLine {
	return b.flags.CommandLine(c.Name(), args, c.Flags().Changed)
}

// usageArgs checks a bench subcommand's positional arguments as a usage
// error (exit 2) that shows its usage line: "bench replay PROFILE".
func usageArgs(s bench.Subcommand) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < s.MinArgs || len(args) > s.MaxArgs {
			return exitcode.Usagef("%s: got %d arguments; usage: %s %s", c.CommandPath(), len(args), c.Parent().CommandPath(), s.Use)
		}
		return nil
	}
}
