package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// maintLoadWait bounds the wait for the background load's first
// requests (a replay preloads its keyspace first).
const maintLoadWait = time.Minute

// Run runs the policy on the cell's cluster: the leader placed, the data
// written, the load started, then the rounds, all written into the cell
// (it returns no document).
func (w *MaintenanceWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	return nil, w.run(ctx, t)
}

func (w *MaintenanceWork) run(ctx context.Context, t *job.Target) error {
	if t.Cluster == nil {
		return errors.New("maintenance needs a local setup")
	}
	m, cell, c := w.Job, t.Cell, t.Cluster
	if m.Leader != "" {
		if err := c.MoveLeader(ctx, m.Leader); err != nil {
			return fmt.Errorf("move the leader to %s: %w", m.Leader, err)
		}
	}
	conn := c.Client()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return err
	}
	defer cli.Close()
	d := &maintData{cli: cli, value: strings.Repeat("x", m.valueBytes())}
	if b := m.dbBytes(); b > 0 {
		d.keys = int(b / int64(m.valueBytes()))
		began := time.Now()
		if err := d.fill(ctx); err != nil {
			return fmt.Errorf("fill: %w", err)
		}
		cell.Notes = append(cell.Notes, fmt.Sprintf("wrote %d keys of %d bytes in %.1f s", d.keys, m.valueBytes(), time.Since(began).Seconds()))
	}
	samples := load.NewSamples(0)
	stop := w.startLoads(ctx, c, samples, cell)
	defer stop()
	if len(w.Loads) > 0 {
		if err := waitForSamples(ctx, samples); err != nil {
			return err
		}
	}
	rec := &result.Maintenance{Policy: m.policy(), Op: m.op(), Order: m.order(), PauseSeconds: m.Pause.D().Seconds(),
		Trigger: m.trigger(), Base: m.Base, Load: strings.Join(m.Load, "; ")}
	if m.op() == result.OpCompact {
		rec.Order = ""
	}
	cell.Maintenance = rec
	for r := range m.rounds() {
		rd, err := w.round(ctx, c, d, samples, r)
		rec.Rounds = append(rec.Rounds, rd)
		if err != nil {
			return fmt.Errorf("round %d: %w", r+1, err)
		}
	}
	return nil
}

// startLoads starts the background loads, each line once per member and
// pinned to it, as a stacked control plane's kube-apiservers each talk to
// their own node's member (kubeadm's --etcd-servers): a member that
// blocks then holds a third of the load, as it would. The clients of a
// line spread over every member would route around the blocked one
// instead (the open loop hands requests to whichever client is free),
// which no apiserver does. Each keeps its requests in samples; the
// function returned stops them and notes their errors.
func (w *MaintenanceWork) startLoads(ctx context.Context, c *cluster.Cluster, samples *load.Samples, cell *result.Cell) func() {
	loadCtx, stopLoad := context.WithCancel(ctx)
	var loads sync.WaitGroup
	type started struct {
		line, member string
		err          error
	}
	var runs []*started
	for li, cl := range w.Loads {
		for _, member := range c.Names() {
			cfg := cl.Config
			cfg.Cluster, cfg.Log, cfg.Engines = c, io.Discard, engines.All()
			cfg.TargetMember, cfg.PinEndpoints = member, true
			cfg.Duration = 3*w.Job.estimate() + 10*time.Minute // stopped when the rounds end
			cfg.Total = 0
			cfg.Observers = append(append([]bench.Observer(nil), cfg.Observers...), bench.KeepSamples(samples))
			s := &started{line: w.Job.Load[li], member: member}
			runs = append(runs, s)
			loads.Go(func() { _, s.err = bench.Run(loadCtx, cfg) })
		}
	}
	return func() {
		stopLoad()
		loads.Wait()
		for _, s := range runs {
			if s.err != nil && ctx.Err() == nil && !errors.Is(s.err, context.Canceled) {
				cell.Notes = append(cell.Notes, fmt.Sprintf("background load on %s (%s): %s", s.member, s.line, oneLine(s.err)))
			}
		}
	}
}

// waitForSamples waits for the load's first requests.
func waitForSamples(ctx context.Context, s *load.Samples) error {
	deadline := time.Now().Add(maintLoadWait)
	for {
		if ops, _ := s.Window(time.Now().Add(-time.Hour), time.Now()); len(ops) > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the background load sent nothing within %s", maintLoadWait)
		}
		if err := sleepCtx(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// round runs the policy once: the data prepared, the settle, the
// operations member by member, the clients' and the members' view.
func (w *MaintenanceWork) round(ctx context.Context, c *cluster.Cluster, d *maintData, samples *load.Samples, r int) (result.MaintenanceRound, error) {
	m := w.Job
	var rd result.MaintenanceRound
	switch {
	case m.op() == result.OpCompact:
		if err := d.history(ctx, m.versions()); err != nil {
			return rd, fmt.Errorf("history: %w", err)
		}
	case m.Fragmentation > 0:
		if err := d.fragment(ctx, r, m.Fragmentation); err != nil {
			return rd, fmt.Errorf("fragment: %w", err)
		}
	}
	if err := sleepCtx(ctx, m.settle()); err != nil {
		return rd, err
	}
	leader, _ := c.CurrentLeader(ctx)
	if st, err := memberStatus(ctx, d.cli, c, leader); err == nil {
		rd.DBBytes, rd.Fragmentation = st.DbSize, fragmentation(st)
	}
	before := scrapeAll(ctx, c)
	var windows [][2]time.Time
	ran := false // the previous member's operation ran
	for _, name := range maintOrder(m, c.Names(), leader) {
		// The pause follows an operation (OpenShift's controller waits
		// after a defragmentation), not a member the trigger skipped.
		if ran && m.Pause > 0 {
			if err := sleepCtx(ctx, m.Pause.D()); err != nil {
				return rd, err
			}
		}
		if m.trigger() == TriggerOpenShift {
			st, err := memberStatus(ctx, d.cli, c, name)
			if err != nil {
				return rd, err
			}
			if f := fragmentation(st); st.DbSize <= openShiftMinBytes || f < openShiftFragmentation {
				rd.Skipped = append(rd.Skipped, fmt.Sprintf("%s: %.0f%% of %d MB free, OpenShift's trigger wants ≥ 45%% of > 100 MB", name, 100*f, st.DbSize/1_000_000))
				ran = false
				continue
			}
		}
		op, err := runMaintOp(ctx, c, m, name)
		rd.Ops = append(rd.Ops, op)
		ran = true
		if err != nil {
			return rd, err
		}
		windows = append(windows, [2]time.Time{op.Began, op.Ended})
	}
	_ = sleepCtx(ctx, time.Second) // the members' counters of the last operation
	after := scrapeAll(ctx, c)
	rd.LeaderChanges = sumIncrease(before, after, metrics.LeaderChanges)
	rd.HeartbeatFailures = sumIncrease(before, after, metrics.HeartbeatSendFailures)
	rd.SlowApplies = sumIncrease(before, after, metrics.SlowApplies)
	if len(windows) > 0 {
		rd.Began, rd.Ended = windows[0][0], windows[len(windows)-1][1]
	} else {
		rd.Began = time.Now()
		rd.Ended = rd.Began
	}
	if err := sleepCtx(ctx, m.tail()); err != nil {
		return rd, err
	}
	if len(w.Loads) > 0 {
		rd.Before, _ = samples.Window(rd.Began.Add(-m.settle()), rd.Began)
		if len(windows) > 0 {
			rd.During, rd.DroppedSamples = samples.Windows(windows)
		}
		for i := range rd.Ops {
			rd.Ops[i].Clients, _ = samples.Window(rd.Ops[i].Began, rd.Ops[i].Ended)
		}
	}
	return rd, nil
}

// maintOrder is the members a round's operations go to, in order; a
// compaction's one operation is the cluster's ("").
func maintOrder(m *MaintenanceJob, names []string, leader string) []string {
	if m.op() == result.OpCompact {
		return []string{""}
	}
	var followers []string
	for _, n := range names {
		if n != leader {
			followers = append(followers, n)
		}
	}
	switch m.order() {
	case OrderLeader:
		return []string{leader}
	case OrderFollower:
		return followers[:min(1, len(followers))]
	case OrderLeaderFirst:
		return append([]string{leader}, followers...)
	default:
		return append(followers, leader)
	}
}

// runMaintOp runs the operation on member through its fault (lab/cluster)
// and returns its record, with the error in it too.
func runMaintOp(ctx context.Context, c *cluster.Cluster, m *MaintenanceJob, member string) (result.MaintenanceOp, error) {
	args := []string{member}
	switch m.op() {
	case result.OpCompact:
		args = []string{"keep=" + strconv.FormatInt(m.Keep, 10)}
	case result.OpCatchUp:
		if m.Entries > 0 {
			args = append(args, strconv.FormatInt(m.Entries, 10))
		}
	}
	rec := result.MaintenanceOp{Op: m.op(), Member: member}
	f, err := cluster.ParseFault(m.op(), args)
	if err != nil {
		rec.Error = err.Error()
		return rec, err
	}
	lf, ok := f.(cluster.LongFault)
	if !ok {
		err := fmt.Errorf("the %s fault does not say what it did", m.op())
		rec.Error = err.Error()
		return rec, err
	}
	began := time.Now()
	out, err := lf.Run(ctx, c, cluster.Request{Args: args})
	if out.Maintenance != nil {
		rec = *out.Maintenance
	} else {
		rec.Began, rec.Ended = began, time.Now()
		rec.Seconds = rec.Ended.Sub(began).Seconds()
	}
	if rec.Detail == "" {
		rec.Detail = out.Detail
	}
	if err != nil {
		rec.Error = err.Error()
	}
	return rec, err
}

// memberStatus is member name's status, from a client of it alone.
func memberStatus(ctx context.Context, cli *clientv3.Client, c *cluster.Cluster, name string) (*clientv3.StatusResponse, error) {
	for _, ms := range c.State().Members {
		if ms.Name == name {
			sctx, cancel := context.WithTimeout(ctx, maintRequestTimeout)
			defer cancel()
			return cli.Status(sctx, ms.ClientURL)
		}
	}
	return nil, fmt.Errorf("no member %q", name)
}

// fragmentation is the database's free share.
func fragmentation(st *clientv3.StatusResponse) float64 {
	if st.DbSize <= 0 || st.DbSizeInUse <= 0 {
		return 0
	}
	return 1 - float64(st.DbSizeInUse)/float64(st.DbSize)
}

// scrapeAll scrapes every member's metrics; a member that does not answer
// has nil.
func scrapeAll(ctx context.Context, c *cluster.Cluster) []*metrics.Snapshot {
	snaps, _ := metrics.ScrapeAll(ctx, c.State().MetricsURLs, nil, 5*time.Second)
	return snaps
}

// sumIncrease sums a counter's increase over the members; -1 when a
// member's is unknown.
func sumIncrease(before, after []*metrics.Snapshot, name metrics.Name) int64 {
	var n float64
	for i := range before {
		if before[i] == nil || i >= len(after) || after[i] == nil {
			return -1
		}
		v, ok := metrics.Increase(before[i], after[i], name)
		if !ok {
			v = 0 // a counter never incremented is not exported
		}
		n += v
	}
	return int64(n)
}
