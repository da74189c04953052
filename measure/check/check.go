package check

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/disk"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// Options configure a check.
type Options struct {
	// Conn reaches a live cluster; without endpoints this machine is
	// checked (disk probe, then a local cluster in DataDir).
	Conn etcdclient.Config
	// MetricsURLs are the members' metrics endpoints; default: the client
	// endpoints (etcd serves /metrics there) or the local cluster's.
	MetricsURLs []string
	DataDir     string
	// StartLoad and MaxLoad bound the levels (s, m, l, xl). MaxLoad
	// defaults to xl on this machine and s on a live cluster.
	StartLoad, MaxLoad string
	// LevelDuration is how long each level runs (check perf: 60 s).
	LevelDuration time.Duration
	// DiskRuntime caps the disk probe.
	DiskRuntime time.Duration
	// LoadCPUs is the load generator's CPU budget in cores on a live
	// cluster (0: none), recorded in the result (Environment.LoadCPUs);
	// the caller runs this process under it (bench.LoadBudget). On this
	// machine it is refused: the members started here would be born in
	// the budget's group.
	LoadCPUs float64
	// Log receives one progress line per phase.
	Log io.Writer
}

const (
	defaultLevelDuration = 6 * time.Second
	defaultDiskRuntime   = 8 * time.Second
	probeDuration        = 2 * time.Second
	scrapeTimeout        = 3 * time.Second
	keyBytes, valBytes   = 256, 1024 // check perf's sizes
)

// target is the cluster under check.
type target struct {
	conn        etcdclient.Config
	names       []string
	metricsURLs []string
	tls         *tls.Config
	local       *cluster.Cluster
	lastErrs    []error // of the latest scrape, per member
}

// Run performs the check. Errors are for checks that could not run at all:
// bad options (invalid-input errors, package invalid), an unreachable
// cluster; anything that could not be measured once running is a SKIP
// verdict saying why, in the document.
func Run(ctx context.Context, o Options) (*result.Document, error) {
	first, last, err := o.validate()
	if err != nil {
		return nil, err
	}
	live := len(o.Conn.Endpoints) > 0
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindCheck, CreatedAt: time.Now().UTC(), Environment: envinfo.Collect()}
	doc.Environment.LoadCPUs = o.LoadCPUs
	c := &result.Check{Mode: map[bool]string{true: "live", false: "local"}[live]}
	doc.Check = c
	began := time.Now()

	var diskP50 float64
	var diskFast string // the disk probe's figure that rules the disk out
	if !live {
		fmt.Fprintf(o.Log, "[%4.1fs] disk: etcd's fio job on %s (at most %s)\n", time.Since(began).Seconds(), o.DataDir, o.DiskRuntime)
		dd, err := disk.Run(ctx, disk.Options{Dir: o.DataDir, Runtime: o.DiskRuntime})
		if err != nil {
			return nil, err
		}
		doc.Disk = dd.Disk
		doc.Verdicts = append(doc.Verdicts, dd.Verdicts...)
		if j := dd.Disk.Jobs[0]; j.SyncLatency != nil {
			diskP50 = j.SyncLatency.At(50)
		}
		diskFast = fastDisk(dd.Verdicts)
	}
	t, err := connect(ctx, &o, live, began, doc)
	if err != nil {
		return nil, err
	}
	defer func() {
		if t.local != nil {
			fmt.Fprintf(o.Log, "[%4.1fs] stopping the local cluster\n", time.Since(began).Seconds())
			_ = t.local.Stop()
		}
	}()
	c.Connect = connectTimes(ctx, t.conn.Endpoints, 2*time.Second)

	// Metrics before anything runs, then a 1-client probe, then the levels.
	start := scrapeAll(ctx, t)
	fmt.Fprintf(o.Log, "[%4.1fs] 1-client latency probe (%s)\n", time.Since(began).Seconds(), probeDuration)
	probe, perr := runLoad(ctx, t, 1, 0, probeDuration, "probe")
	afterProbe := scrapeAll(ctx, t)
	if perr != nil {
		c.Partial = append(c.Partial, "could not run the 1-client probe: "+perr.Error())
	}
	// Server metrics are judged up to the end of the last level that
	// passed: the load this cluster sustains. The level that failed is the
	// capacity finding; its figures are in the levels table.
	sustained, latest := afterProbe, afterProbe
	levels := Levels()
	for i := first; i <= last && ctx.Err() == nil; i++ {
		l := levels[i]
		fmt.Fprintf(o.Log, "[%4.1fs] load level %s: %.0f writes/s with %d clients for %s\n", time.Since(began).Seconds(), l.Name, l.Rate, l.Clients, o.LevelDuration)
		before := scrapeAll(ctx, t)
		run, err := runLoad(ctx, t, l.Clients, l.Rate, o.LevelDuration, l.Name)
		after := scrapeAll(ctx, t)
		latest = after
		if err != nil {
			c.Partial = append(c.Partial, fmt.Sprintf("could not run load level %s: %v", l.Name, err))
			break
		}
		run.Name = fmt.Sprintf("level %s: %.0f writes/s, %d clients", l.Name, l.Rate, l.Clients)
		doc.Runs = append(doc.Runs, run)
		lv := judgeLevel(l, run)
		lv.WalFsyncP99 = worstQuantile(before, after, metrics.WALFsyncDuration)
		lv.BackendCommitP99 = worstQuantile(before, after, metrics.BackendCommitDuration)
		if !live {
			lv.MembersCPUCores = membersCores(before, after)
			lv.LoadCPUCores = run.LoadCPUCores
			if run.MachineCPUCores > 0 {
				lv.OtherCPUCores = max(run.MachineCPUCores-run.LoadCPUCores-lv.MembersCPUCores, 0)
			}
		}
		judgeServerDuring(&lv, diskFast)
		busy(&lv)
		c.Levels = append(c.Levels, lv)
		if !lv.Passed {
			if i == first {
				sustained = after // nothing sustained: judge what was seen
			}
			break
		}
		c.Highest = l.Name
		sustained = after
	}
	doc.Verdicts = append(doc.Verdicts, capacityVerdict(c.Levels, levels[first], levels[last]))
	c.Members = memberMetrics(t, start, sustained)
	doc.Verdicts = append(doc.Verdicts, serverVerdicts(c.Members, live)...)
	doc.Verdicts = append(doc.Verdicts, connectVerdict(c.Connect))
	c.Floor = floor(floorInput{diskP50: diskP50, loopback: !live, probe: probe, names: t.names, before: start, after: afterProbe, first: start, last: latest})
	doc.Environment.Members = len(t.names)
	if note := maintenanceNote(t.names, start, latest); note != "" {
		doc.Notes = append(doc.Notes, note)
	}
	if !live {
		doc.Notes = append(doc.Notes, "the three local members share this machine's CPUs and disk; in production each has its own, so CPU starvation shows up here sooner")
	}
	doc.Overall = result.Overall(doc.Verdicts)
	if ctx.Err() != nil {
		return doc, errors.New("interrupted: the results are partial")
	}
	return doc, nil
}

// connect starts the local cluster or reaches the live one.
func connect(ctx context.Context, o *Options, live bool, began time.Time, doc *result.Document) (*target, error) {
	t := &target{}
	if !live {
		fmt.Fprintf(o.Log, "[%4.1fs] starting a local 3-member cluster on %s\n", time.Since(began).Seconds(), o.DataDir)
		cl, err := cluster.Start(ctx, cluster.Options{Members: 3, BaseDir: filepath.Join(o.DataDir, ".etcdlab")})
		if err != nil {
			return nil, err
		}
		st := cl.State()
		t.local, t.conn, t.metricsURLs, t.names = cl, cl.Client(), st.MetricsURLs, cl.Names()
		doc.Environment.LocalCluster, doc.Environment.DataDir = true, cl.DataDir()
		doc.Environment.Filesystem = envinfo.Filesystem(cl.DataDir())
		return t, nil
	}
	t.conn = o.Conn
	cli, err := etcdclient.NewChecked(ctx, t.conn)
	if err != nil {
		return nil, err
	}
	defer cli.Close()
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if st, err := cli.Status(lctx, cli.Endpoints()[0]); err == nil {
		doc.Environment.ServerVersion = st.Version
	}
	if byMember, summary, err := etcdclient.MemberVersions(lctx, cli); err == nil && len(byMember) > 0 {
		doc.Environment.MemberVersions, doc.Environment.ServerVersion = byMember, summary
	}
	t.metricsURLs = o.MetricsURLs
	if len(t.metricsURLs) == 0 {
		t.metricsURLs = t.conn.Endpoints
	}
	if tc, err := t.conn.TLS(); err == nil {
		t.tls = tc
	}
	t.names = append([]string(nil), t.metricsURLs...)
	fmt.Fprintf(o.Log, "[%4.1fs] checking the live cluster at %v (load from %s up to %s)\n", time.Since(began).Seconds(), t.conn.Endpoints, o.StartLoad, o.MaxLoad)
	return t, nil
}

// scrapeAll scrapes every member; a failed scrape is a nil entry.
func scrapeAll(ctx context.Context, t *target) []*metrics.Snapshot {
	out := make([]*metrics.Snapshot, len(t.metricsURLs))
	errs := make([]error, len(t.metricsURLs))
	for i, u := range t.metricsURLs {
		out[i], errs[i] = metrics.Scrape(ctx, u, t.tls, scrapeTimeout)
	}
	t.lastErrs = errs
	return out
}

// eachPair calls f for every member both scrapes could read.
func eachPair(before, after []*metrics.Snapshot, f func(b, a *metrics.Snapshot)) {
	for i := range before {
		if before[i] != nil && i < len(after) && after[i] != nil {
			f(before[i], after[i])
		}
	}
}

// worstQuantile is the highest p99 of a histogram across members.
func worstQuantile(before, after []*metrics.Snapshot, name metrics.Name) float64 {
	w := 0.0
	eachPair(before, after, func(b, a *metrics.Snapshot) {
		if q, n := metrics.Quantile(0.99, b, a, name); n > 0 && q > w {
			w = q
		}
	})
	return w
}

// memberMetrics computes each member's figures over the whole check.
func memberMetrics(t *target, start, end []*metrics.Snapshot) []result.MemberCheck {
	out := make([]result.MemberCheck, len(t.metricsURLs))
	for i, u := range t.metricsURLs {
		m := result.MemberCheck{Name: u, MetricsURL: u}
		if i < len(t.names) {
			m.Name = t.names[i]
		}
		b, a := start[i], end[i]
		if b == nil || a == nil {
			m.Error = fmt.Sprintf("%s: %v", m.Name, firstErr(t.lastErrs, i))
			out[i] = m
			continue
		}
		m.WalFsyncP99, _ = quantileOrZero(b, a, metrics.WALFsyncDuration)
		m.BackendCommitP99, _ = quantileOrZero(b, a, metrics.BackendCommitDuration)
		m.PeerRTTP99, m.PeerRTTSamples = quantileOrZero(b, a, metrics.PeerRoundTripTime)
		m.SlowApplies, _ = metrics.Increase(b, a, metrics.SlowApplies)
		m.LeaderChanges, _ = metrics.Increase(b, a, metrics.LeaderChanges)
		m.ProposalsFailed, _ = metrics.Increase(b, a, metrics.ProposalsFailed)
		m.HeartbeatFailures, _ = metrics.Increase(b, a, metrics.HeartbeatSendFailures)
		if cpu, ok := metrics.Increase(b, a, metrics.ProcessCPUSeconds); ok {
			m.CPUCores = cpu / a.At.Sub(b.At).Seconds()
		}
		m.RSSBytes, _ = a.Gauge(metrics.ProcessResidentMemory)
		out[i] = m
	}
	return out
}

func firstErr(errs []error, i int) error {
	if i < len(errs) && errs[i] != nil {
		return errs[i]
	}
	return errors.New("no metrics")
}

// quantileOrZero is the p99 over the interval, or 0 when nothing was
// observed (a real fsync never takes 0 s).
func quantileOrZero(b, a *metrics.Snapshot, name metrics.Name) (float64, float64) {
	q, n := metrics.Quantile(0.99, b, a, name)
	if n == 0 || math.IsNaN(q) {
		return 0, 0
	}
	return q, n
}
