package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/spf13/cobra"
)

// app is the process state every command gets instead of reaching for
// globals: where to write, and nothing else yet.
type app struct {
	stdout io.Writer
	stderr io.Writer
	// maxProcs sets GOMAXPROCS (bench --cpus) and returns the previous
	// value. Only the real command sets it: it is process-wide, and tests
	// run commands side by side in one process.
	maxProcs func(int) int
	// args is the command line being run (without the program name).
	args []string
	// stdin is what "-" reads (nil: the process's standard input).
	stdin io.Reader
}

// stdinFile returns what "-" reads.
func (a *app) stdinFile() io.Reader {
	if a.stdin != nil {
		return a.stdin
	}
	return os.Stdin
}

// run executes one etcdlab command line and returns the exit code. It prints
// a failing command's error as one line on stderr, followed by its detail
// (such as a member's log tail) when it has one.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return (&app{stdout: stdout, stderr: stderr}).run(ctx, args)
}

// run executes one command line with a's settings.
func (a *app) run(ctx context.Context, args []string) int {
	stdout, stderr := a.stdout, a.stderr
	a.args = args
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil {
		msg := err.Error()
		if inv := invalid.As(err); inv != nil {
			// Name the options as this command's flags; invalid input
			// means nothing was done (exit 2) unless a code says otherwise.
			msg = strings.Replace(msg, inv.Error(), inv.Text(flagNamer(cmd)), 1)
			err = exitcode.With(err, exitcode.Usage)
		}
		fmt.Fprintf(stderr, "etcdlab: %s\n", strings.ReplaceAll(msg, "\n", " "))
		var d exitcode.Detailer
		if errors.As(err, &d) && d.Detail() != "" {
			fmt.Fprintln(stderr, d.Detail())
		}
	}
	return exitcode.Code(err)
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "etcdlab",
		Short: "Is my etcd fast enough, why is it slow, and what happens if I change it?",
		Long: `etcdlab measures and explains etcd performance on a real etcd: it runs local
clusters in one command, loads them, probes the disk and judges the results
against etcd's published thresholds.`,
		Example: `  # is this machine fast enough for etcd? (disk, a local cluster, load, metrics, verdicts)
  etcdlab check

  # etcd benchmark's command lines, measured honestly; a report from the result
  etcdlab bench --conns=100 --clients=1000 put --val-size=256 --total=100000 -o json > run.json
  etcdlab report run.json -o report.html

  # a field report's whole experiment: setups × workloads × sweeps, one result
  etcdlab experiment run storage-sweep --quick

  # a real 3-member etcd cluster on this machine, until Ctrl-C
  etcdlab cluster up

  # the same over TLS, on tmpfs, keeping the data afterwards
  etcdlab cluster up --tls --data-dir /dev/shm/etcdlab --keep-data

  # from another terminal
  etcdlab cluster status
  etcdlab cluster down`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          groupArgs,
		RunE:          helpRun,
		// Every command's duration flags, before its RunE (validate.go).
		PersistentPreRunE: nonNegativeDurations,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: false},
	}
	root.SetVersionTemplate("etcdlab {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.Usagef("%v (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(a.checkCmd(), a.doctorCmd(), a.profileCmd(), a.sizeCmd(), a.clusterCmd(), a.benchCmd(), a.experimentCmd(), a.diskCmd(), a.reportCmd(), a.compareCmd(), a.memberCmd(), a.agentCmd(), a.mergeCmd())
	return root
}

// groupArgs rejects unknown subcommands of a command that only groups others.
func groupArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.Usagef("unknown command %q for %q (see '%s --help')", args[0], c.CommandPath(), c.CommandPath())
	}
	return nil
}

// printf writes a line for a person to stderr.
func (a *app) printf(format string, args ...any) { fmt.Fprintf(a.stderr, format, args...) }

func helpRun(c *cobra.Command, _ []string) error { return c.Help() }

// noArgs is cobra.NoArgs with a usage exit code.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return exitcode.Usagef("%s takes no arguments, got %q", c.CommandPath(), args)
	}
	return nil
}
