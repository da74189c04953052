package main

import (
	"io"
	"os"
	"strconv"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

// agentOptions are `etcdlab agent`'s flags.
type agentOptions struct {
	index    int
	result   string
	argsFile string
}

func (a *app) agentCmd() *cobra.Command {
	o := &agentOptions{}
	c := &cobra.Command{
		Use:   "agent [-- BENCH-ARGS...]",
		Short: "Run one agent of a bench load split over several processes (what bench --agents and the Kubernetes Job run)",
		Long: `Runs agent JOB_COMPLETION_INDEX (or --index) of a bench command line that has
--agents N: its slice of the load (clients, connections, total and rate
divided by N) under its own sub-prefix of --prefix, waiting for the other
agents before each run. Its result, with its histograms, goes to --result,
or to stdout on one line starting "etcdlab-agent-result" (so that kubectl
logs carries it); etcdlab merge puts the agents' results together.

The command line comes after "--", or from --args-file (one argument per
line, blank lines and lines starting with # ignored), the Job's ConfigMap.`,
		Example: `  # what the Indexed Job's pods run (deploy/kubernetes)
  etcdlab agent --args-file /etc/etcdlab/bench.args

  # by hand, agent 1 of 2
  JOB_COMPLETION_INDEX=1 etcdlab agent -- --endpoints=$EP --prefix=/etcdlab/bench/x/ --agents=2 --clients=100 put --total=10000`,
		RunE:        func(c *cobra.Command, argv []string) error { return a.runAgent(c, o, argv) },
		Annotations: map[string]string{benchLine: "true"},
	}
	for field, flag := range bench.FlagNames() {
		c.Annotations["param:"+field] = flag
	}
	fl := c.Flags()
	fl.IntVar(&o.index, "index", -1, "this agent's index (default: $JOB_COMPLETION_INDEX)")
	fl.StringVar(&o.result, "result", "", "write the result to this file (default: stdout, as one marker line)")
	fl.StringVar(&o.argsFile, "args-file", "", "read the bench command line from this file, one argument per line")
	c.AddCommand(a.manifestsCmd())
	return c
}

func (a *app) runAgent(c *cobra.Command, o *agentOptions, argv []string) error {
	args := argv
	if o.argsFile != "" {
		if len(argv) > 0 {
			return exitcode.Usagef("give the bench command line after -- or in --args-file, not both")
		}
		var err error
		if args, err = agents.ReadArgsFile(o.argsFile); err != nil {
			return exitcode.Usagef("--args-file: %v", err)
		}
	}
	if len(args) == 0 {
		return exitcode.Usagef("no bench command line: give it after -- or in --args-file")
	}
	index := o.index
	if !c.Flags().Changed("index") {
		env, ok := os.LookupEnv(agents.IndexEnv)
		if !ok {
			return exitcode.Usagef("no agent index: set %s (an Indexed Job does) or --index", agents.IndexEnv)
		}
		n, err := strconv.Atoi(env)
		if err != nil {
			return exitcode.Usagef("%s=%q is not an index", agents.IndexEnv, env)
		}
		index = n
	}
	cl, err := bench.ParseArgs(args)
	if err != nil {
		return err
	}
	cfg := cl.Config
	// --agents=1 is one process that sends the whole load: what bench
	// --load-cpus runs under its budget.
	if cfg.Agent.Count < 1 || (cfg.Agent.Count == 1 && cfg.LoadCPUs == 0) {
		return exitcode.Usagef("the bench command line has no --agents N (N of at least 2, or 1 with --load-cpus): an agent is one of several")
	}
	cfg.Agent.Index = index
	cfg.Log = a.stderr
	cfg.Engines = engines.All() // bench's own and those it cannot import (replay, the real control plane)
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.LoadCPUs > 0 && os.Getenv(agents.BudgetedEnv) == "" {
		// Not put into a budget by a parent (bench --agents here): a pod
		// or a process started by hand limits itself.
		b, err := selfBudget(cfg.LoadCPUs, a.stderr)
		if err != nil {
			return err
		}
		defer b.Close()
	}
	if cfg.Agent.Count == 1 && cl.Output.CPUs > 0 && a.maxProcs != nil {
		defer a.maxProcs(a.maxProcs(cl.Output.CPUs)) // the one process: --cpus is its
	}
	if cl.Output.ListenMetrics != "" {
		live := load.NewLive(bench.LiveOptions(cfg))
		srv, err := a.serveMetrics(cl.Output.ListenMetrics, live)
		if err != nil {
			return err
		}
		defer srv.close()
		cfg.Observers = append(cfg.Observers, bench.ShowLive(live))
	}
	doc, runErr := agents.RunAgent(c.Context(), cfg)
	if doc != nil {
		if err := writeAgentResult(a, o.result, doc); err != nil {
			return exitcode.Failuref("write the agent's result: %v", err)
		}
	}
	if runErr == nil && c.Context().Err() != nil {
		return exitcode.Failuref("interrupted: the result is partial")
	}
	return runErr
}

// writeAgentResult writes doc to path (whole or not at all), or as a
// marker line to stdout when path is "".
func writeAgentResult(a *app, path string, doc *result.Document) error {
	if path == "" {
		return agents.WriteLine(a.stdout, doc)
	}
	return atomicfile.Write(path, 0o600, func(w io.Writer) error { return result.Write(w, doc) })
}

// mergeOptions are `etcdlab merge`'s flags.
type mergeOptions struct {
	output  string
	precise bool
}

func (a *app) mergeCmd() *cobra.Command {
	o := &mergeOptions{}
	c := &cobra.Command{
		Use:   "merge FILE... | -",
		Short: "Merge bench agents' results into one result (exact percentiles over every agent's samples)",
		Long: `Reads agents' results (bench --agents, etcdlab agent, the Kubernetes Job's
pods) from files or stdin ("-"): JSON result documents, or any text with
"etcdlab-agent-result" lines such as the output of
  kubectl logs -l job-name=etcdlab-bench --tail=-1 --max-log-requests=64
and writes one bench result, as bench would: latency percentiles from one
histogram holding every agent's samples, times on one clock (the agents'
clock offsets, measured at their barriers, taken off). An agent whose result
is missing is named, and the command fails after writing the result.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, files []string) error { return a.runMerge(c, o, files) },
	}
	c.Flags().StringVarP(&o.output, "output", "o", "text", "output: text (etcd benchmark's layout), json or csv")
	c.Flags().BoolVar(&o.precise, "precise", false, "use full floating point precision")
	return c
}

func (a *app) runMerge(c *cobra.Command, o *mergeOptions, files []string) error {
	if _, err := outputFormat(result.KindBench, o.output); err != nil {
		return err
	}
	var docs []*result.Document
	for _, f := range files {
		r := a.stdinFile()
		if f != "-" {
			fh, err := os.Open(f)
			if err != nil {
				return exitcode.Usagef("%v", err)
			}
			r = fh
		}
		ds, err := agents.ReadResults(r)
		if c, ok := r.(io.Closer); ok && f != "-" {
			c.Close()
		}
		if err != nil {
			return exitcode.Usagef("%s: %v", f, err)
		}
		docs = append(docs, ds...)
	}
	doc, err := agents.Merge(docs, nil)
	if err != nil {
		return exitcode.Usagef("merge: %v", err)
	}
	return a.showMerged(c, doc, bench.Output{Format: o.output, Precise: o.precise})
}
