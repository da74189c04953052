package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// Local is `bench --agents N` on this machine, ready to run: the cluster
// the agents load (one started for them when the configuration names
// none), the prefix they share and the bench command line each runs.
// Make it with PrepareLocal, run it once with Run, and Close it (which
// stops a cluster started for it). Not for concurrent use.
type Local struct {
	cfg  bench.Config
	args []string
	// started is the cluster started for the agents (nil: the
	// configuration's endpoints); stop says whether Close stops it.
	started *cluster.Cluster
	stop    bool
	members int // the started cluster's
	// count is how many agent processes run: cfg.Agent.Count, or 1 for
	// a load under a CPU budget that is not split (one process sends the
	// whole load); budget is that budget's group (nil: none).
	count  int
	budget *bench.LoadBudget
}

// PrepareLocal readies a bench load split over cfg.Agent.Count agent
// processes on this machine; args is its bench command line (after
// "bench"), which every agent runs. Without endpoints it starts a local
// cluster of cfg.LocalMembers members in cfg.LocalBaseDir (log says so)
// and gives the agents its endpoints and TLS files (a cluster in
// cfg.Cluster is given to them the same way, and left running); without
// a prefix it picks one for all of them. Then it validates cfg as
// bench.Config.Validate does: its errors are invalid-input errors.
//
// With a load budget (cfg.LoadCPUs) it makes the budget's group
// (bench.NewLoadBudget: a *cluster.BudgetError without permission), into
// which Run puts every agent; a load that is not split (cfg.Agent.Count
// below 2) then runs as one agent that sends the whole load
// (`--agents=1` is added to its command line), so that the budget holds
// the load and nothing else, not this process's emulated links and disks.
func PrepareLocal(ctx context.Context, cfg bench.Config, args []string, log io.Writer) (*Local, error) {
	if log == nil {
		log = io.Discard
	}
	l := &Local{args: slices.Clone(args), count: cfg.Agent.Count}
	if cfg.LoadCPUs > 0 && l.count < 2 {
		l.count, cfg.Agent.Count = 1, 1
		l.args = append(l.args, "--agents=1")
	}
	if err := bench.ValidateLoadCPUs(cfg.LoadCPUs); err != nil {
		return nil, err
	}
	if cfg.Cluster != nil || len(cfg.Conn.Endpoints) == 0 {
		cl, members := cfg.Cluster, cfg.LocalMembers
		if cl != nil {
			members = len(cl.State().Members)
		} else {
			var err error
			cl, err = cluster.Start(ctx, cluster.Options{Members: cfg.LocalMembers, BaseDir: cfg.LocalBaseDir, Log: log})
			if err != nil {
				return nil, fmt.Errorf("start a local cluster: %w", err)
			}
			l.stop = true
			who := "the agents (removed when they end)"
			if l.count == 1 {
				who = "the load process (removed when it ends)"
			}
			fmt.Fprintf(log, "no --endpoints: started a local %d-member cluster in %s for %s\n", cfg.LocalMembers, cl.DataDir(), who)
		}
		l.started, l.members, cfg.Cluster = cl, members, nil
		cc := cl.Client()
		cfg.Conn.Endpoints, cfg.Conn.CACert, cfg.Conn.Cert, cfg.Conn.Key = cc.Endpoints, cc.CACert, cc.Cert, cc.Key
		l.args = append(l.args, "--endpoints="+strings.Join(cc.Endpoints, ","))
		if cc.CACert != "" {
			l.args = append(l.args, "--cacert="+cc.CACert, "--cert="+cc.Cert, "--key="+cc.Key)
		}
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "/etcdlab/bench/" + bench.RunID(time.Now()) + "/"
		l.args = append(l.args, "--prefix="+cfg.Prefix)
	}
	if err := cfg.Validate(); err != nil {
		l.Close()
		return nil, err
	}
	if cfg.LoadCPUs > 0 {
		b, err := bench.NewLoadBudget(cfg.LoadCPUs, log)
		if err != nil {
			l.Close()
			return nil, err
		}
		l.budget = b
	}
	l.cfg = cfg
	return l, nil
}

// Close removes the load budget's group and stops the cluster started
// for the agents, if one was.
func (l *Local) Close() {
	if l.budget != nil {
		_ = l.budget.Close()
		l.budget = nil
	}
	if l.stop {
		_ = l.started.Stop()
		l.stop = false
	}
}

// LocalRun says how Local.Run runs the agents' processes.
type LocalRun struct {
	// Exe is the etcdlab binary the agents run (default: this process's).
	Exe string
	// AgentArgs, if set, adds arguments of agent i's own (its metrics
	// address).
	AgentArgs func(i int) []string
	// Stderr receives the agents' stderr, each line prefixed "agent I: ".
	Stderr io.Writer
	// Grace is how long agents get to stop on their own once ctx ends
	// (LocalOptions.Grace).
	Grace time.Duration
}

// LocalBench is what a Local run left.
type LocalBench struct {
	// Doc is the agents' results merged (Merge), completed with the
	// cluster started for them; nil when agents failed (Failed) and none
	// measured anything, or the results did not merge.
	Doc *result.Document
	// Measured says whether any agent's result holds a run.
	Measured bool
	// Failed says how agents that wrote a result but failed ended (their
	// own lines said why); agents with no result are Doc.Agents.Missing.
	Failed map[int]string
	// Cleaned says, one line per agent missing from Doc, what deleting
	// its keys did; CleanErr is the error that stopped that.
	Cleaned  []string
	CleanErr error
}

// ErrMerge marks Run's error when the agents' results did not merge.
var ErrMerge = errors.New("merge")

// Run starts the agents as the Indexed Job starts its pods (RunLocal),
// waits for them, merges their results and deletes the keys of agents
// that ended without deleting them. Cancelling ctx interrupts the agents
// (they stop and delete their keys); what they measured is merged.
func (l *Local) Run(ctx context.Context, o LocalRun) (LocalBench, error) {
	lo := LocalOptions{Exe: o.Exe, Count: l.count, Args: l.args, AgentArgs: o.AgentArgs, Stderr: o.Stderr, Grace: o.Grace}
	if l.budget != nil {
		lo.Place = l.budget.Add
	}
	res, err := RunLocal(ctx, lo)
	if err != nil {
		return LocalBench{}, err
	}
	out := LocalBench{Failed: res.Failed}
	for _, d := range res.Docs {
		out.Measured = out.Measured || len(d.Runs) > 0
	}
	if len(res.Failed) > 0 && !out.Measured {
		return out, nil
	}
	var doc *result.Document
	if l.count == 1 { // the whole load in one process: its result is the result
		doc = res.Docs[0]
	} else if doc, err = Merge(res.Docs, res.Missing); err != nil {
		return out, fmt.Errorf("%w: %w", ErrMerge, err)
	}
	if l.budget != nil {
		doc.Environment.LoadCPUs = l.budget.Cores()
		what := "the load ran in a process of its own"
		if l.count > 1 {
			what = fmt.Sprintf("the %d agents ran", l.count)
		}
		doc.Notes = append(doc.Notes, fmt.Sprintf("%s under a CPU budget of %g cores (cgroup %s)", what, l.budget.Cores(), l.budget.Group().Name()))
	}
	if l.started != nil { // says in the result that etcdlab started the cluster
		env := &doc.Environment
		env.LocalCluster, env.DataDir, env.Filesystem = true, l.started.DataDir(), envinfo.Filesystem(l.started.DataDir())
		env.MemberCPUs = l.started.State().MemberCPUs()
		doc.Notes = append(doc.Notes, fmt.Sprintf("ran against a local %d-member cluster etcdlab started in %s", l.members, l.started.DataDir()))
	}
	out.Doc = doc
	var gone []int
	var missing []result.MissingAgent
	if doc.Agents != nil {
		missing = doc.Agents.Missing
	}
	for _, m := range missing {
		gone = append(gone, m.Index)
	}
	if len(gone) > 0 {
		out.Cleaned, out.CleanErr = CleanMissing(ctx, l.cfg.Conn, l.cfg.Prefix, gone)
	}
	return out, nil
}
