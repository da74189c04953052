package render

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// runSpec is one hand-built measured run: secs seconds of load at rps
// with latency p50, and each member's metrics every second.
type runSpec struct {
	name               string
	start              time.Time
	secs               int
	clients, conns     int
	iteration          int
	rps, p50           float64
	cpu, load          float64 // per member mean cores; the load generator's (0: not measured)
	fsyncP50, fsyncP99 float64
	fsyncMean          float64 // the fsyncs' mean (from _sum); fsyncP50 when 0
	fsyncsPerSec       float64
	rtt                float64
	diskPerSec         float64 // bytes written per second per member
	slowApplies        float64 // per member per second
	// downAt and downFor: the leader (m1) is killed at downAt seconds and
	// the others have no leader for downFor seconds; 0: no fault.
	downAt, downFor int
}

// latency shape: each percentile as a multiple of p50.
func latencyOf(p50 float64) result.Latency {
	return result.Latency{Min: p50 * 0.5, Mean: p50 * 1.1, Stddev: p50 * 0.4, Max: p50 * 6, P10: p50 * 0.8, P25: p50 * 0.9, P50: p50, P75: p50 * 1.15,
		P90: p50 * 1.4, P95: p50 * 1.6, P99: p50 * 2.2, P999: p50 * 3.5}
}

func (s runSpec) run() result.Run {
	end := s.start.Add(time.Duration(s.secs) * time.Second)
	r := result.Run{Name: s.name, Conns: s.conns, Clients: s.clients, Iteration: s.iteration, Start: s.start, End: end, LoadCPUCores: s.load}
	down := func(i int) bool { return s.downFor > 0 && i >= s.downAt && i < s.downAt+s.downFor }
	var total, failed int64
	for i := 0; i < s.secs; i++ {
		sec := result.Second{UnixSecond: s.start.Unix() + int64(i), Requests: int64(s.rps), Min: s.p50 * 0.5, Mean: s.p50 * (1.05 + 0.01*float64(i%3)), Max: s.p50 * 6}
		if down(i) {
			sec = result.Second{UnixSecond: sec.UnixSecond, Errors: 30}
		}
		total, failed = total+sec.Requests, failed+sec.Errors
		r.TimeSeries = append(r.TimeSeries, sec)
	}
	r.Stats.Requests, r.Stats.DurationSeconds = total, float64(s.secs)
	r.ThroughputRPS = float64(total) / float64(s.secs)
	r.Latency = latencyOf(s.p50)
	r.Errors = map[string]int64{}
	if failed > 0 {
		r.Errors["Unavailable"] = failed
		r.ErrorMessages = map[string]int64{"etcdserver: no leader": failed}
		r.ClusterUnavailability = &result.Unavailability{TotalSeconds: float64(s.downFor) + 0.2, LongestSeconds: float64(s.downFor) + 0.2,
			Windows: []result.Window{{Start: s.start.Add(time.Duration(s.downAt) * time.Second), Seconds: float64(s.downFor) + 0.2}}}
	}
	r.Server = &result.Server{IntervalSeconds: 1, EtcdVersion: "3.6.16"}
	for k := 1; k <= 3; k++ {
		mb := result.MemberSeries{Name: "m" + strconv.Itoa(k), MetricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", 2379+10*k)}
		var cpu float64
		for i := 0; i < s.secs; i++ {
			if k == 1 && s.downFor > 0 && i >= s.downAt {
				mb.ScrapeErrors++
				mb.FirstError = "connection refused"
				continue
			}
			c := s.cpu * (0.9 + 0.1*float64((i+k)%3))
			cpu += c
			p := result.ServerPoint{UnixMillis: s.start.Add(time.Duration(i+1) * time.Second).UnixMilli(), WALFsyncP50: s.fsyncP50, WALFsyncP99: s.fsyncP99,
				BackendCommitP99: s.fsyncP99 * 2, PeerRTTP99: s.rtt * (1 + 0.05*float64(k)), HasLeader: !down(i), IsLeader: k == 1 || (k == 2 && s.downFor > 0 && i >= s.downAt+s.downFor),
				SlowApplies: s.slowApplies, GRPCPerSecond: s.rps, CPUCores: c, RSSBytes: 80 << 20, DiskWriteBytesPerS: s.diskPerSec, DiskWriteOpsPerS: s.fsyncsPerSec,
				DBSizeBytes: 20 << 20, DBInUseBytes: 18 << 20}
			if k > 1 && s.downFor > 0 && i == s.downAt+s.downFor {
				p.LeaderChanges = 1
			}
			mb.Points = append(mb.Points, p)
		}
		n := float64(len(mb.Points))
		mb.Summary = result.ServerSummary{WALFsyncP50: s.fsyncP50, WALFsyncP99: s.fsyncP99, WALFsyncs: s.fsyncsPerSec * n, WALFsyncSeconds: s.fsyncsPerSec * n * cmp.Or(s.fsyncMean, s.fsyncP50), BackendCommitP99: s.fsyncP99 * 2,
			PeerRTTP99: s.rtt * (1 + 0.05*float64(k)), SlowApplies: s.slowApplies * n,
			GRPCRequests: s.rps * n, DBSizeBytes: 20 << 20, DBInUseBytes: 18 << 20,
			CPUCoresMean: cpu / n, CPUCoresMax: s.cpu * 1.1, RSSMaxBytes: 80 << 20, DiskWriteBytes: s.diskPerSec * n, DiskWriteOps: s.fsyncsPerSec * n}
		if s.rtt > 0 { // the pipeline prober's round trip, and the stream prober's three
			mb.Summary.PeerRTTLowestBucket, mb.Summary.PeerRTTHighestBucket = result.BucketOf(s.rtt, result.PeerRTTBuckets()), result.BucketOf(3*s.rtt, result.PeerRTTBuckets())
		}
		if k > 1 && s.downFor > 0 {
			mb.Summary.LeaderChanges, mb.Summary.SecondsWithoutLead = 1, float64(s.downFor)
		}
		r.Server.Members = append(r.Server.Members, mb)
	}
	return r
}

// benchCell builds a cell from its runs, with the summary across them.
func benchCell(id, setup, workload string, params map[string]string, env result.Environment, runs ...result.Run) result.Cell {
	c := result.Cell{ID: id, Setup: setup, Workload: workload, Params: params, Status: result.CellOK, Environment: env, Runs: runs,
		Start: runs[0].Start, End: runs[len(runs)-1].End, Bench: &result.BenchConfig{Command: "put", Mode: "closed", Conns: []int{runs[0].Conns}, Clients: []int{runs[0].Clients}, Iterations: len(runs)},
		Overhead: result.CellOverhead{ClusterStartSeconds: 1.4, TeardownSeconds: 0.3}}
	var tput, p50, p99, mean []float64
	for _, r := range runs {
		tput, p50, p99, mean = append(tput, r.ThroughputRPS), append(p50, r.Latency.P50), append(p99, r.Latency.P99), append(mean, r.Latency.Mean)
	}
	c.Summaries = []result.Summary{{Name: fmt.Sprintf("put conns=%d clients=%d", runs[0].Conns, runs[0].Clients), Conns: runs[0].Conns, Clients: runs[0].Clients,
		Iterations: len(runs), ThroughputRPS: msd(tput), P50: msd(p50), P99: msd(p99), Mean: msd(mean)}}
	return c
}

// msd is the mean and sample standard deviation.
func msd(xs []float64) result.MeanSD {
	var s float64
	for _, x := range xs {
		s += x
	}
	m := s / float64(len(xs))
	if len(xs) < 2 {
		return result.MeanSD{Mean: m}
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return result.MeanSD{Mean: m, Stddev: math.Sqrt(ss / float64(len(xs)-1))}
}

var fixtureStart = time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)

func machine() result.Environment {
	return result.Environment{Etcdlab: "test", GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", CPUs: 2, MemoryBytes: 24 << 30, Kernel: "6.18",
		ServerVersion: "3.6.16", Members: 3, LocalCluster: true}
}

// storageSweep is the storage article's experiment on a 2-core machine:
// tmpfs and a slowed disk, 100, 1,000 and 10,000 clients at 50
// connections, 2 iterations each; the leader is killed in tmpfs at 1,000
// clients; tmpfs at 50,000 clients failed to start and the slowed disk's
// did not run (the experiment was interrupted); the slowed disk's fsync job
// was measured too.
func storageSweep() *result.Document {
	type point struct {
		clients           int
		rps, p50, cpu, ld float64
		fsyncs            float64
	}
	setups := []struct {
		name, fs                  string
		fsyncP50, fp99, fsyncMean float64
		points                    []point
	}{
		{"tmpfs", "tmpfs", 0.001, 0.001, 0.00002, []point{{100, 4200, 0.022, 0.25, 0.2, 300}, {1000, 7600, 0.12, 0.42, 0.35, 420}, {10000, 8000, 1.1, 0.49, 0.45, 450}}},
		{"slowdisk", "fuse.slowfs", 0.005, 0.009, 0.0052, []point{{100, 1900, 0.05, 0.15, 0.1, 110}, {1000, 2300, 0.42, 0.2, 0.12, 170}, {10000, 2350, 4.1, 0.22, 0.2, 175}}},
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, CreatedAt: fixtureStart, Environment: machine()}
	e := &result.Experiment{Name: "storage-sweep", Title: "Does faster storage make etcd faster?", Source: "field report 004", Profile: "quick",
		Spec: "name: storage-sweep\n", Partial: "interrupted"}
	at := fixtureStart
	for _, s := range setups {
		env := machine()
		env.DataDir, env.Filesystem = "/tmp/etcdlab-"+s.name, s.fs
		for _, p := range s.points {
			id := fmt.Sprintf("%s/put/clients=%d", s.name, p.clients)
			var runs []result.Run
			// Long enough for 10 requests per client, but for the slowed
			// disk's 10,000 clients: that point is left out of the curves.
			secs := 10
			if id == "tmpfs/put/clients=10000" {
				secs = 15
			}
			for it := 1; it <= 2; it++ {
				rs := runSpec{name: id, start: at, secs: secs, clients: p.clients, conns: 50, iteration: it, rps: p.rps * (1 + 0.02*float64(it-1)), p50: p.p50,
					cpu: p.cpu, load: p.ld, fsyncP50: s.fsyncP50, fsyncP99: s.fp99, fsyncMean: s.fsyncMean, fsyncsPerSec: p.fsyncs, rtt: 0.0003, diskPerSec: p.fsyncs * 40960, slowApplies: 0}
				if id == "tmpfs/put/clients=1000" && it == 1 {
					rs.downAt, rs.downFor = 4, 1
				}
				runs = append(runs, rs.run())
				at = at.Add(time.Duration(secs+2) * time.Second)
			}
			c := benchCell(id, s.name, "put", map[string]string{"clients": strconv.Itoa(p.clients), "conns": "50"}, env, runs...)
			if id == "tmpfs/put/clients=1000" {
				c.Faults = []result.FaultEvent{{AtSeconds: 4, Time: runs[0].Start.Add(4 * time.Second), Action: "kill", Target: "leader", NewLeaderSeconds: 1.2}}
			}
			e.Cells = append(e.Cells, c)
		}
		if s.name == "slowdisk" {
			lat := &result.DiskLatency{Min: 0.004, Mean: 0.0052, Max: 0.02, Percentiles: []result.Percentile{{P: 50, Seconds: 0.005}, {P: 99, Seconds: 0.009}, {P: 99.9, Seconds: 0.015}}}
			e.Cells = append(e.Cells, result.Cell{ID: "slowdisk/disk", Setup: "slowdisk", Workload: "disk", Status: result.CellOK, Environment: env,
				Disk: &result.Disk{Profile: "etcd", Dir: env.DataDir, Filesystem: env.Filesystem, Jobs: []result.DiskJob{{Name: "sequential fdatasync", Sync: "fdatasync", BlockSize: 2300,
					QueueDepth: 1, Ops: 1900, WriteOps: 1900, IOPS: 190, RuntimeSeconds: 10, SyncLatency: lat}}},
				Verdicts: []result.Verdict{judge.Value(judge.DiskFsyncP99, 0.009, units.Seconds), judge.IOPSTier(190)}})
		}
		status, why := result.CellFailed, "cluster did not start: m2: listen tcp 127.0.0.1:2390: bind: address already in use"
		if s.name == "slowdisk" {
			status, why = result.CellPending, ""
		}
		e.Cells = append(e.Cells, result.Cell{ID: s.name + "/put/clients=50000", Setup: s.name, Workload: "put", Params: map[string]string{"clients": "50000", "conns": "50"},
			Status: status, Error: why, Environment: env})
	}
	e.Published = []result.Published{{Match: map[string]string{"setup": "tmpfs", "clients": "10000"}, Metric: "p99_seconds", Value: 0.9,
		Note: "a fixture figure: PMEM on a Xeon Gold 6254 limited to 18 cores, etcd 3.5.3; ours is tmpfs on 2 shared cores"}}
	doc.Experiment = e
	return doc
}

// multicloud is the multi-cloud article's four scenarios, one benchmark
// run each (1 client, 1 connection), with the article's scenario-0
// figures beside ours.
func multicloud() *result.Document {
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, CreatedAt: fixtureStart, Environment: machine()}
	e := &result.Experiment{Name: "multicloud", Title: "etcd in a multi-cloud Kubernetes cluster", Source: "field report 000", Profile: "quick", Spec: "name: multicloud\n"}
	for i, sc := range []struct{ rps, p50, rtt float64 }{{196.5, 0.0049, 0.0026}, {150, 0.0065, 0.004}, {60, 0.016, 0.013}, {14, 0.07, 0.065}} {
		setup := "multicloud-" + strconv.Itoa(i)
		r := runSpec{name: setup, start: fixtureStart.Add(time.Duration(i) * time.Minute), secs: 12, clients: 1, conns: 1, iteration: 1, rps: sc.rps, p50: sc.p50,
			cpu: 0.05, fsyncP50: 0.001, fsyncP99: 0.001, fsyncsPerSec: sc.rps, rtt: sc.rtt, diskPerSec: sc.rps * 400, slowApplies: float64(i * i)}.run()
		env := machine()
		env.DataDir, env.Filesystem = "/tmp/etcdlab-"+setup, "ext4"
		// The links were emulated: the cell records the round trip each
		// member's commits waited for as the leader.
		env.CommitRTTSeconds = map[string]float64{"m1": sc.rtt, "m2": sc.rtt, "m3": sc.rtt}
		e.Cells = append(e.Cells, benchCell(setup+"/benchmark", setup, "benchmark", map[string]string{"clients": "1", "conns": "1"}, env, r))
	}
	note := "the article: three GCP zones of one region over a real network, TLS; ours: one machine, links emulated on loopback"
	for metric, v := range map[string]float64{"throughput_rps": 196.5, "total_seconds": 50.9, "p10_seconds": 0.0042, "p25_seconds": 0.0046, "p50_seconds": 0.0049,
		"p75_seconds": 0.0053, "p90_seconds": 0.0059, "p95_seconds": 0.0067, "p99_seconds": 0.0089, "p999_seconds": 0.0136} {
		e.Published = append(e.Published, result.Published{Match: map[string]string{"setup": "multicloud-0"}, Metric: metric, Value: v, Note: note})
	}
	sortPublished(e.Published)
	doc.Experiment = e
	return doc
}

// sortPublished orders published figures as the article lists them.
func sortPublished(ps []result.Published) {
	order := []string{"throughput_rps", "total_seconds", "p10_seconds", "p25_seconds", "p50_seconds", "p75_seconds", "p90_seconds", "p95_seconds", "p99_seconds", "p999_seconds"}
	rank := map[string]int{}
	for i, m := range order {
		rank[m] = i
	}
	for i := 1; i < len(ps); i++ {
		for j := i; j > 0 && rank[ps[j].Metric] < rank[ps[j-1].Metric]; j-- {
			ps[j], ps[j-1] = ps[j-1], ps[j]
		}
	}
}

// leaderVsAll is the Graviton article's two modes on one setup, five
// iterations each, with the article's M5 xlarge figures beside ours.
// scale multiplies throughput (another machine).
func leaderVsAll(scale float64) *result.Document {
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, CreatedAt: fixtureStart, Environment: machine()}
	e := &result.Experiment{Name: "leader-vs-all", Title: "Write to the leader or to all members", Source: "field report 002", Profile: "quick", Spec: "name: leader-vs-all\n"}
	env := machine()
	for w, mode := range []struct {
		name     string
		rps, p50 float64
	}{{"leader", 9000, 0.1}, {"all", 12500, 0.075}} {
		var runs []result.Run
		for it := 1; it <= 5; it++ {
			jitter := 1 + 0.02*float64((it*7+w)%5-2)
			runs = append(runs, runSpec{name: mode.name, start: fixtureStart.Add(time.Duration(w*5+it) * 10 * time.Second), secs: 5, clients: 1000, conns: 100, iteration: it,
				rps: mode.rps * scale * jitter, p50: mode.p50 / scale / jitter, cpu: 0.62, fsyncP50: 0.001, fsyncP99: 0.0011, fsyncsPerSec: 400, rtt: 0.0004, diskPerSec: 8 << 20}.run())
		}
		e.Cells = append(e.Cells, benchCell("3-members/"+mode.name, "3-members", mode.name, map[string]string{"clients": "1000", "conns": "100"}, env, runs...))
	}
	note := "the article: m5.xlarge (Xeon), 3 members on their own instances, client on an m6g.4xlarge"
	e.Published = []result.Published{
		{Match: map[string]string{"workload": "leader"}, Metric: "throughput_rps", Value: 37924.91, Note: note},
		{Match: map[string]string{"workload": "all"}, Metric: "throughput_rps", Value: 55262.25, Note: note},
		{Match: map[string]string{"workload": "all"}, Metric: "mean_seconds", Value: 0.01797, Note: note},
		{Match: map[string]string{"cell": "no-such-cell"}, Metric: "throughput_rps", Value: 1, Note: "matches nothing"},
	}
	doc.Experiment = e
	return doc
}
