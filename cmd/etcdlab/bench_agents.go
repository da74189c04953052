package main

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

// runAgents is `bench --agents N` on this machine: the load split over N
// agent processes started as the Indexed Job starts its pods, their
// results merged into one (agents.Local); here, its flags and output.
func (a *app) runAgents(c *cobra.Command, o bench.Output, cfg bench.Config) (err error) {
	single := cfg.Agent.Count < 2 // --load-cpus: one process sends the whole load; it takes --cpus
	if (o.CPUs != 0 && !single) || o.CPUProfile != "" {
		return exitcode.Usagef("--cpus and --cpuprofile apply to one process, not to agents")
	}
	ctx := c.Context()
	local, err := agents.PrepareLocal(ctx, cfg, a.benchArgs(), a.stderr)
	if err != nil {
		return budgetExit(err)
	}
	defer local.Close()
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find etcdlab's binary for the agents: %w", err)
	}
	lo := agents.LocalRun{Exe: exe, Stderr: a.stderr}
	if o.ListenMetrics != "" {
		// One address per agent: the given port plus the agent's index
		// (port 0: each agent's own pick); each prints where it listens.
		host, port, err := net.SplitHostPort(o.ListenMetrics)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return exitcode.Usagef("--listen-metrics %q: want HOST:PORT", o.ListenMetrics)
		}
		lo.AgentArgs = func(i int) []string {
			if p == 0 {
				return nil
			}
			return []string{"--listen-metrics=" + net.JoinHostPort(host, strconv.Itoa(p+i))}
		}
	}
	res, err := local.Run(ctx, lo)
	if err != nil && !errors.Is(err, agents.ErrMerge) {
		return err
	}
	if len(res.Failed) > 0 {
		var failed []string
		for _, i := range slices.Sorted(maps.Keys(res.Failed)) {
			failed = append(failed, fmt.Sprintf("agent %d %s", i, res.Failed[i]))
		}
		msg := strings.Join(failed, ", ") + " (its lines above say why)"
		if !res.Measured {
			return exitcode.Failuref("%s; nothing was measured", msg)
		}
		defer func() { err = errors.Join(err, exitcode.Failuref("%s; the result above holds what was measured", msg)) }()
	}
	if err != nil {
		return exitcode.Usagef("%v", err)
	}
	for _, l := range res.Cleaned {
		fmt.Fprintln(a.stderr, "note: cleaned up after", l)
	}
	if res.CleanErr != nil {
		fmt.Fprintln(a.stderr, "etcdlab: clean up after a missing agent:", res.CleanErr)
	}
	return a.showMerged(c, res.Doc, o)
}

// showMerged shows agents' merged result as o asks and fails when agents
// are missing from it.
func (a *app) showMerged(c *cobra.Command, doc *result.Document, o bench.Output) error {
	if err := a.showBench(doc, o); err != nil {
		return err
	}
	if doc.Agents != nil && len(doc.Agents.Missing) > 0 {
		return exitcode.Failuref("%s", agents.MissingNote(doc.Agents))
	}
	if c.Context().Err() != nil {
		return exitcode.Failuref("interrupted: the results above are partial")
	}
	return nil
}

// benchArgs is the bench command line being run, after "bench".
func (a *app) benchArgs() []string {
	i := slices.Index(a.args, "bench")
	if i < 0 {
		return nil
	}
	return slices.Clone(a.args[i+1:])
}
