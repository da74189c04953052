package experiment

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// setupCluster is a started local cluster and the options it was
// started with.
type setupCluster struct {
	c    *cluster.Cluster
	opts cluster.Options
}

// runCell runs one cell: its cluster (started, or the setup's shared
// one), its workload, its fault timeline, and the teardown. last says it
// is the last cell of its setup in this run (a shared cluster stops
// after it). It never panics on a failure: the cell's status says what
// happened.
func (r *runner) runCell(ctx context.Context, pc *Cell, last bool) (cell result.Cell) {
	cell = result.Cell{
		ID: pc.ID, Setup: pc.Setup.Name, Workload: pc.Workload.Name, Params: pc.Params,
		Status: result.CellOK, Start: time.Now().UTC(), Environment: r.doc.Environment,
	}
	fail := func(err error) {
		if ctx.Err() != nil {
			cell.Status, cell.Error = result.CellInterrupted, "interrupted: "+oneLine(err)
		} else {
			cell.Status, cell.Error = result.CellFailed, oneLine(err)
		}
	}
	defer func() {
		if cell.Status == result.CellOK && ctx.Err() != nil {
			cell.Status = result.CellInterrupted
		}
		cell.End = time.Now().UTC()
	}()

	var sc *setupCluster
	t := &job.Target{
		Leader: pc.Setup.Leader, LoadCPUs: r.loadCPUs(pc.Setup), Executable: r.o.Executable, DataDir: r.o.DataDir, Live: r.o.Live, Cell: &cell,
	}
	switch {
	case ownClusters(pc.Work):
		// The work starts its clusters itself: the setup's is not used.
	case pc.Setup.Live():
		var err error
		cell.Environment.MemberCores = pc.Setup.MemberCores
		t.MetricsURLs = pc.Setup.MetricsURLs
		if t.Conn, err = r.plan.Spec.live(pc.Setup).Conn(); err != nil {
			fail(err)
			return cell
		}
	default:
		var startSeconds float64
		var err error
		sc, startSeconds, err = r.cluster(ctx, pc.Setup)
		cell.Overhead.ClusterStartSeconds = startSeconds
		if err != nil {
			fail(fmt.Errorf("start the cluster: %s", job.ErrText(err, yamlClusterName)))
			return cell
		}
		defer func() {
			if pc.Setup.Reuse && !last && ctx.Err() == nil {
				return
			}
			began := time.Now()
			if err := sc.c.Stop(); err != nil {
				cell.Notes = append(cell.Notes, "stopping the cluster: "+oneLine(err))
			}
			delete(r.clusters, pc.Setup.Name)
			cell.Overhead.TeardownSeconds = time.Since(began).Seconds()
		}()
		t.Cluster, t.Options, t.Conn = sc.c, sc.opts, job.LocalConn(sc.c)
		st := sc.c.State()
		cell.Environment.Members, cell.Environment.LocalCluster = len(st.Members), true
		cell.Environment.DataDir, cell.Environment.ServerVersion = st.DataDir, st.EtcdVersion
		cell.Environment.MemberVersions = map[string]string{}
		for _, m := range st.Members {
			cell.Environment.MemberVersions[m.Name] = m.EtcdVersion
		}
		wp, _ := pc.Work.(job.WritePath)
		cell.Environment.CommitRTTSeconds, cell.Environment.WriteRTTSeconds = emulatedRTTs(sc.opts, st.Members, wp)
	}

	doc, err := r.runWork(ctx, pc, sc, t)
	if doc != nil {
		cell.Environment = mergeEnvironment(cell.Environment, doc.Environment)
		cell.Bench, cell.Runs, cell.Summaries = doc.Bench, doc.Runs, doc.Summaries
		cell.Disk, cell.Check, cell.Verdicts = doc.Disk, doc.Check, doc.Verdicts
		cell.Notes = append(cell.Notes, doc.Notes...)
	}
	if err != nil {
		fail(err)
	}
	return cell
}

// ownClusters reports whether w starts clusters of its own
// (job.OwnClusters): its cell starts none.
func ownClusters(w job.Work) bool {
	oc, ok := w.(job.OwnClusters)
	return ok && oc.StartsOwnClusters()
}

// emulatedRTTs are topology.CommitRTT and WriteRTT for the cluster's
// members, in seconds, by leader. A work's connection i goes to member i
// mod n (the cluster's endpoints are in member order), or to the leader
// (job.WritePath); the write path is left out when the work does not say
// its connections (a bench line that sweeps them, or no bench line).
func emulatedRTTs(o cluster.Options, members []cluster.MemberState, wp job.WritePath) (commit, write map[string]float64) {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.Name
	}
	seconds := func(m map[string]time.Duration) map[string]float64 {
		if m == nil {
			return nil
		}
		out := make(map[string]float64, len(m))
		for k, v := range m {
			out[k] = v.Seconds()
		}
		return out
	}
	commit = seconds(topology.CommitRTT(o.Links, names))
	if wp == nil || commit == nil {
		return commit, nil
	}
	conns, toLeader, ok := wp.WritePath()
	if !ok {
		return commit, nil
	}
	if toLeader {
		write = map[string]float64{}
		for _, l := range names {
			write[l] = seconds(topology.WriteRTT(o.Links, names, []string{l}))[l]
		}
		return commit, write
	}
	var endpoints []string
	for i := range conns {
		endpoints = append(endpoints, names[i%len(names)])
	}
	return commit, seconds(topology.WriteRTT(o.Links, names, endpoints))
}

// mergeEnvironment keeps what the workload's result says and fills in
// what it did not.
func mergeEnvironment(base, got result.Environment) result.Environment {
	if got.Members == 0 {
		got.Members = base.Members
	}
	if got.DataDir == "" {
		got.DataDir, got.Filesystem = base.DataDir, base.Filesystem
	}
	if got.ServerVersion == "" {
		got.ServerVersion = base.ServerVersion
	}
	if got.MemberVersions == nil {
		got.MemberVersions = base.MemberVersions
	}
	if got.MemberCores == 0 {
		got.MemberCores = base.MemberCores
	}
	if got.CommitRTTSeconds == nil {
		got.CommitRTTSeconds, got.WriteRTTSeconds = base.CommitRTTSeconds, base.WriteRTTSeconds
	}
	got.LocalCluster = got.LocalCluster || base.LocalCluster
	return got
}

// cluster returns the setup's cluster: its shared one if it has one
// running, else a new one, with the seconds its start took.
func (r *runner) cluster(ctx context.Context, st *Setup) (*setupCluster, float64, error) {
	if sc, ok := r.clusters[st.Name]; ok && st.Reuse {
		return sc, 0, nil
	}
	o, err := r.plan.Spec.clusterOptions(st, setupEnv{DataDir: r.o.DataDir})
	if err != nil {
		return nil, 0, err
	}
	o.Executable, o.Log = r.o.Executable, io.Discard
	began := time.Now()
	c, err := cluster.Start(ctx, o)
	took := time.Since(began).Seconds()
	if err != nil {
		return nil, took, err
	}
	sc := &setupCluster{c: c, opts: o}
	if st.Reuse {
		r.clusters[st.Name] = sc
	}
	return sc, took, nil
}

// runWork runs the cell's work against its cluster: the file's fault
// timeline during a job.FileFaults work's measured run on a local setup,
// finished (and recorded in the cell) when the work returns.
func (r *runner) runWork(ctx context.Context, pc *Cell, sc *setupCluster, t *job.Target) (*result.Document, error) {
	if sc == nil {
		return pc.Work.Run(ctx, t)
	}
	cell := t.Cell
	t.Timeline = func(job.Faults) job.Timeline {
		if len(pc.Workload.faults) == 0 {
			return nil
		}
		return &cellTimeline{timeline: newTimeline(sc.c, pc.Workload.faults), cell: cell}
	}
	ff, ok := pc.Work.(job.FileFaults)
	if !ok || !ff.RunsFileFaults() || len(r.plan.Spec.Faults) == 0 {
		return pc.Work.Run(ctx, t)
	}
	tl := &cellTimeline{timeline: newTimeline(sc.c, r.plan.Spec.Faults), cell: cell, reused: pc.Setup.Reuse}
	if err := tl.prepare(ctx, r.plan.Spec.relPath(".")); err != nil {
		tl.Finish()
		return nil, err
	}
	t.Faults = tl
	doc, err := pc.Work.Run(ctx, t)
	tl.Finish()
	if doc != nil {
		if n := attributeUpgrades(cell.Faults, doc.Runs); n != "" {
			doc.Notes = append(doc.Notes, n)
		}
	}
	return doc, err
}

// cellTimeline is a timeline as a cell's work sees it (job.Timeline):
// finishing it records its events in the cell.
type cellTimeline struct {
	*timeline
	cell   *result.Cell
	reused bool
}

func (t *cellTimeline) Start(ctx context.Context) { t.start(ctx) }
func (t *cellTimeline) Unavailable() string       { return t.unavailable() }
func (t *cellTimeline) LeaderHit() string         { return t.leaderHit() }
func (t *cellTimeline) Finish()                   { t.cell.Faults = t.finish(t.reused) }

// live is how to reach a live setup, its files relative to the file's
// directory.
func (s *Spec) live(st *Setup) job.Live {
	return job.Live{
		Setup: st.Name, Endpoints: st.Endpoints, CACert: s.relPath(st.CACert), Cert: s.relPath(st.Cert), Key: s.relPath(st.Key),
		InsecureSkipVerify: st.InsecureSkipVerify, User: st.User, PasswordFile: s.relPath(st.PasswordFile),
	}
}
