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
	"time"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

// runAgents is `bench --agents N` on this machine: the load split over N
// agent processes started as the Indexed Job starts its pods, their
// results merged into one.
func (a *app) runAgents(c *cobra.Command, o bench.Output, cfg bench.Config) (err error) {
	if o.CPUs != 0 || o.CPUProfile != "" {
		return exitcode.Usagef("--cpus and --cpuprofile apply to one process, not to agents")
	}
	ctx := c.Context()
	args := a.benchArgs()
	var local func(*result.Document) // says in the result that etcdlab started the cluster
	if cfg.Cluster == nil && len(cfg.Conn.Endpoints) == 0 {
		cl, err := cluster.Start(ctx, cluster.Options{Members: cfg.LocalMembers, BaseDir: cfg.LocalBaseDir, Log: a.stderr})
		if err != nil {
			return fmt.Errorf("start a local cluster: %w", err)
		}
		defer func() { _ = cl.Stop() }()
		cc := cl.Client()
		fmt.Fprintf(a.stderr, "no --endpoints: started a local %d-member cluster in %s for the agents (removed when they end)\n", cfg.LocalMembers, cl.DataDir())
		cfg.Conn.Endpoints, cfg.Conn.CACert, cfg.Conn.Cert, cfg.Conn.Key = cc.Endpoints, cc.CACert, cc.Cert, cc.Key
		args = append(args, "--endpoints="+strings.Join(cc.Endpoints, ","))
		local = func(doc *result.Document) {
			doc.Environment.LocalCluster, doc.Environment.DataDir = true, cl.DataDir()
			doc.Notes = append(doc.Notes, fmt.Sprintf("ran against a local %d-member cluster etcdlab started in %s", cfg.LocalMembers, cl.DataDir()))
		}
		if cc.CACert != "" {
			args = append(args, "--cacert="+cc.CACert, "--cert="+cc.Cert, "--key="+cc.Key)
		}
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/etcdlab/bench/" + bench.RunID(time.Now()) + "/"
		args = append(args, "--prefix="+cfg.Prefix)
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find etcdlab's binary for the agents: %w", err)
	}
	lo := agents.LocalOptions{Exe: exe, Count: cfg.Agent.Count, Args: args, Stderr: a.stderr}
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
	res, err := agents.RunLocal(ctx, lo)
	if err != nil {
		return err
	}
	if len(res.Failed) > 0 {
		var failed []string
		for _, i := range slices.Sorted(maps.Keys(res.Failed)) {
			failed = append(failed, fmt.Sprintf("agent %d %s", i, res.Failed[i]))
		}
		msg := strings.Join(failed, ", ") + " (its lines above say why)"
		measured := false
		for _, d := range res.Docs {
			measured = measured || len(d.Runs) > 0
		}
		if !measured {
			return exitcode.Failuref("%s; nothing was measured", msg)
		}
		defer func() { err = errors.Join(err, exitcode.Failuref("%s; the result above holds what was measured", msg)) }()
	}
	return a.showMerged(c, res.Docs, res.Missing, o, local, func(missing []int) {
		lines, err := agents.CleanMissing(ctx, cfg.Conn, cfg.Prefix, missing, bench.AgentPrefix)
		for _, l := range lines {
			fmt.Fprintln(a.stderr, "note: cleaned up after", l)
		}
		if err != nil {
			fmt.Fprintln(a.stderr, "etcdlab: clean up after a missing agent:", err)
		}
	})
}

// showMerged merges agents' results, completes the merged result with
// fix (if set), shows it as o asks and fails when agents are missing
// (after cleaning up after them with clean, if set).
func (a *app) showMerged(c *cobra.Command, docs []*result.Document, missing map[int]string, o bench.Output, fix func(*result.Document), clean func([]int)) error {
	doc, err := agents.Merge(docs, missing)
	if err != nil {
		return exitcode.Usagef("merge: %v", err)
	}
	if fix != nil {
		fix(doc)
	}
	var gone []int
	for _, m := range doc.Agents.Missing {
		gone = append(gone, m.Index)
	}
	if clean != nil && len(gone) > 0 {
		clean(gone)
	}
	if err := a.showBench(doc, o); err != nil {
		return err
	}
	if len(gone) > 0 {
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
