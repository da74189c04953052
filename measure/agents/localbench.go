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
}

// PrepareLocal readies a bench load split over cfg.Agent.Count agent
// processes on this machine; args is its bench command line (after
// "bench"), which every agent runs. Without endpoints it starts a local
// cluster of cfg.LocalMembers members in cfg.LocalBaseDir (log says so)
// and gives the agents its endpoints and TLS files (a cluster in
// cfg.Cluster is given to them the same way, and left running); without
// a prefix it picks one for all of them. Then it validates cfg as
// bench.Config.Validate does: its errors are invalid-input errors.
func PrepareLocal(ctx context.Context, cfg bench.Config, args []string, log io.Writer) (*Local, error) {
	if log == nil {
		log = io.Discard
	}
	l := &Local{args: slices.Clone(args)}
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
			fmt.Fprintf(log, "no --endpoints: started a local %d-member cluster in %s for the agents (removed when they end)\n", cfg.LocalMembers, cl.DataDir())
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
	l.cfg = cfg
	return l, nil
}

// Close stops the cluster started for the agents, if one was.
func (l *Local) Close() {
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
	res, err := RunLocal(ctx, LocalOptions{Exe: o.Exe, Count: l.cfg.Agent.Count, Args: l.args, AgentArgs: o.AgentArgs, Stderr: o.Stderr, Grace: o.Grace})
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
	doc, err := Merge(res.Docs, res.Missing)
	if err != nil {
		return out, fmt.Errorf("%w: %w", ErrMerge, err)
	}
	if l.started != nil { // says in the result that etcdlab started the cluster
		doc.Environment.LocalCluster, doc.Environment.DataDir = true, l.started.DataDir()
		doc.Notes = append(doc.Notes, fmt.Sprintf("ran against a local %d-member cluster etcdlab started in %s", l.members, l.started.DataDir()))
	}
	out.Doc = doc
	var gone []int
	for _, m := range doc.Agents.Missing {
		gone = append(gone, m.Index)
	}
	if len(gone) > 0 {
		out.Cleaned, out.CleanErr = CleanMissing(ctx, l.cfg.Conn, l.cfg.Prefix, gone)
	}
	return out, nil
}
