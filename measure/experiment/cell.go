package experiment

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/check"
	"github.com/etcdlab/etcdlab/measure/disk"
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
	var conn etcdclient.Config
	if pc.Setup.Live() {
		var err error
		cell.Environment.MemberCores = pc.Setup.MemberCores
		if conn, err = r.plan.Spec.liveConn(pc.Setup); err != nil {
			fail(err)
			return cell
		}
	} else {
		var startSeconds float64
		var err error
		sc, startSeconds, err = r.cluster(ctx, pc.Setup)
		cell.Overhead.ClusterStartSeconds = startSeconds
		if err != nil {
			fail(fmt.Errorf("start the cluster: %s", errText(err, yamlClusterName)))
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
		conn = sc.c.Client()
		conn.DialTimeout = etcdclient.DefaultDialTimeout
		st := sc.c.State()
		cell.Environment.Members, cell.Environment.LocalCluster = len(st.Members), true
		cell.Environment.DataDir, cell.Environment.ServerVersion = st.DataDir, st.EtcdVersion
		cell.Environment.MemberVersions = map[string]string{}
		for _, m := range st.Members {
			cell.Environment.MemberVersions[m.Name] = m.EtcdVersion
		}
		var bc *bench.Config
		if pc.Disk == nil && pc.Check == nil && pc.Doctor == nil {
			bc = &pc.Bench.Config
		}
		cell.Environment.CommitRTTSeconds, cell.Environment.WriteRTTSeconds = emulatedRTTs(sc.opts.Links, st.Members, bc)
	}

	var doc *result.Document
	var err error
	switch {
	case pc.Disk != nil:
		doc, err = r.runDisk(ctx, pc, sc)
	case pc.Check != nil:
		doc, err = r.runCheck(ctx, pc, sc, conn)
	case pc.Doctor != nil:
		err = r.runDoctor(ctx, pc, sc, &cell)
	default:
		doc, err = r.runBench(ctx, pc, sc, conn, &cell)
	}
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

// emulatedRTTs are topology.CommitRTT and WriteRTT for the cluster's
// members, in seconds, by leader. A bench line's connection i goes to
// member i mod n (the cluster's endpoints are in member order), or to the
// leader with --target-leader; the write path is left out when the line
// sweeps connections or is no bench line.
func emulatedRTTs(links map[wan.Dir]wan.Link, members []cluster.MemberState, b *bench.Config) (commit, write map[string]float64) {
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
	commit = seconds(topology.CommitRTT(links, names))
	if b == nil || len(b.Conns) != 1 || commit == nil {
		return commit, nil
	}
	if b.TargetLeader {
		write = map[string]float64{}
		for _, l := range names {
			write[l] = seconds(topology.WriteRTT(links, names, []string{l}))[l]
		}
		return commit, write
	}
	var endpoints []string
	for i := range b.Conns[0] {
		endpoints = append(endpoints, names[i%len(names)])
	}
	return commit, seconds(topology.WriteRTT(links, names, endpoints))
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

// runBench runs the cell's bench line against its cluster, with the
// fault timeline during the measured run.
func (r *runner) runBench(ctx context.Context, pc *Cell, sc *setupCluster, conn etcdclient.Config, cell *result.Cell) (*result.Document, error) {
	if cores := r.loadCPUs(pc.Setup); cores > 0 && sc != nil {
		return r.runBudgetedBench(ctx, pc, sc, cores)
	}
	cfg := pc.Bench.Config
	cfg.Log = io.Discard
	obs := []bench.Observer{cleanupTimer{&cell.Overhead}}
	if r.o.Live != nil {
		obs = append(obs, bench.ShowLive(r.o.Live))
	}
	if sc != nil {
		cfg.Cluster = sc.c
	} else {
		conn.DialTimeout = cfg.Conn.DialTimeout
		cfg.Conn = conn
		cfg.MetricsURLs = pc.Setup.MetricsURLs
	}
	if sc != nil && pc.Setup.Leader != "" {
		obs = append(obs, &bench.PlaceLeader{Cluster: sc.c, Member: pc.Setup.Leader})
	}
	var tl *timeline
	if sc != nil && len(r.plan.Spec.Faults) > 0 {
		tl = newTimeline(sc.c, r.plan.Spec.Faults)
		if err := tl.prepare(ctx, r.plan.Spec.relPath(".")); err != nil {
			cell.Faults = tl.finish(pc.Setup.Reuse)
			return nil, err
		}
		obs = append([]bench.Observer{timelineObserver{tl}}, obs...)
	}
	cfg.Observers = append(slices.Clip(cfg.Observers), obs...)
	doc, err := bench.Run(ctx, cfg)
	if tl != nil {
		cell.Faults = tl.finish(pc.Setup.Reuse)
		if doc != nil {
			if n := attributeUpgrades(cell.Faults, doc.Runs); n != "" {
				doc.Notes = append(doc.Notes, n)
			}
		}
	}
	return doc, err
}

// runDisk runs the disk job in the first member's data dir: in this
// process, or in a child etcdlab when that dir is a slow file system this
// process serves.
func (r *runner) runDisk(ctx context.Context, pc *Cell, sc *setupCluster) (*result.Document, error) {
	if sc == nil {
		return nil, fmt.Errorf("the disk job needs a local setup")
	}
	st := sc.c.State()
	first := st.Members[0]
	o, err := diskOptions(pc.Disk, first.DataDir)
	if err != nil {
		return nil, err
	}
	if ops := sc.opts.SlowedOps(first.Name); len(ops) > 0 {
		doc, err := runDiskChild(ctx, r.o.Executable, o)
		disk.NoteSlowedOps(doc, ops)
		return doc, err
	}
	return disk.Run(ctx, o)
}

// runCheck runs etcdlab check against the cell's cluster, as a live
// cluster.
func (r *runner) runCheck(ctx context.Context, pc *Cell, sc *setupCluster, conn etcdclient.Config) (*result.Document, error) {
	o := check.Options{Conn: conn, StartLoad: pc.Check.Load, MaxLoad: pc.Check.MaxLoad, LevelDuration: pc.Check.LevelDuration.D()}
	if sc != nil {
		o.MetricsURLs = sc.c.State().MetricsURLs
	} else {
		o.MetricsURLs = pc.Setup.MetricsURLs
	}
	return check.Run(ctx, o)
}

// liveConn is how to reach a live setup; the password is read from its
// file now, so it is in no file etcdlab writes.
func (s *Spec) liveConn(st *Setup) (etcdclient.Config, error) {
	c := etcdclient.Config{
		Endpoints: st.Endpoints, CACert: s.relPath(st.CACert), Cert: s.relPath(st.Cert), Key: s.relPath(st.Key),
		InsecureSkipVerify: st.InsecureSkipVerify, User: st.User, DialTimeout: etcdclient.DefaultDialTimeout,
	}
	if st.PasswordFile != "" {
		b, err := os.ReadFile(s.relPath(st.PasswordFile))
		if err != nil {
			return c, fmt.Errorf("setup %s: password_file: %w", st.Name, err)
		}
		c.User = st.User + ":" + strings.TrimRight(string(b), "\r\n")
	}
	return c, nil
}
