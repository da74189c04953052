package bottleneck

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// spec describes one hand-built cell: its load, what the clients measured
// and what each member's metrics said.
type spec struct {
	setup, status, err string
	clients            int
	rate               float64
	rps, p50           float64 // req/s, seconds
	secs               float64 // run duration; 30 when 0
	iterations         int     // 1 when 0
	members            int     // 3 when 0
	noServer           bool
	cpu                []float64 // per member mean cores; 0.1 each when nil
	load               float64   // load generator cores; 0: not measured
	loadLimit          int       // the load generator's GOMAXPROCS; 0: not recorded
	fsyncP50, fsyncP99 []float64 // per member; 0.2 ms / 0.4 ms when nil
	fsyncsPerSec       float64   // per member; 100 when 0
	rtt                float64   // peer round trip p99 per member
	params             map[string]string
	clusterDown        float64
	noLeader           []float64 // per member seconds without a leader
	leaderChanges      float64
	quota              int64
	faults             []result.FaultEvent
	leader             int                // 1-based member leading at the end; 0: none seen
	commitRTT          map[string]float64 // emulated, by leader
	writeRTT           map[string]float64 // emulated write path, by leader
	machine            float64            // the machine's CPU in use, cores; 0: not measured
}

func (s spec) cell() result.Cell {
	if s.members == 0 {
		s.members = 3
	}
	if s.secs == 0 {
		s.secs = 30
	}
	if s.iterations == 0 {
		s.iterations = 1
	}
	if s.status == "" {
		s.status = result.CellOK
	}
	if s.setup == "" {
		s.setup = "tmpfs"
	}
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	params := map[string]string{"clients": strconv.Itoa(s.clients)}
	for k, v := range s.params {
		params[k] = v
	}
	c := result.Cell{ID: s.setup + "/put/clients=" + strconv.Itoa(s.clients), Setup: s.setup, Workload: "put", Params: params, Status: s.status, Error: s.err,
		Bench: &result.BenchConfig{Command: "put", Rate: s.rate}, Faults: s.faults, Environment: result.Environment{CommitRTTSeconds: s.commitRTT, WriteRTTSeconds: s.writeRTT}}
	var rps []float64
	for it := 1; it <= s.iterations; it++ {
		r := result.Run{Name: c.ID, Clients: s.clients, Conns: 50, Iteration: it, Start: start, End: start.Add(time.Duration(s.secs * float64(time.Second))),
			Stats: result.Stats{Requests: int64(s.rps * s.secs), DurationSeconds: s.secs, ThroughputRPS: s.rps * (1 + 0.01*float64(it-1)),
				Latency: result.Latency{P50: s.p50, P99: s.p50 * 3}, Errors: map[string]int64{}}, LoadCPUCores: s.load, LoadCoresLimit: s.loadLimit, MachineCPUCores: s.machine}
		if s.quota > 0 {
			r.Errors["ResourceExhausted"] = s.quota
			r.ErrorMessages = map[string]int64{"etcdserver: mvcc: database space exceeded": s.quota}
		}
		if s.clusterDown > 0 {
			r.ClusterUnavailability = &result.Unavailability{TotalSeconds: s.clusterDown, LongestSeconds: s.clusterDown}
			r.Errors["Unavailable"] = 40
		}
		if !s.noServer {
			r.Server = &result.Server{IntervalSeconds: 1}
			for k := 0; k < s.members; k++ {
				sum := result.ServerSummary{CPUCoresMean: at(s.cpu, k, 0.1), WALFsyncP50: at(s.fsyncP50, k, 0.0002), WALFsyncP99: at(s.fsyncP99, k, 0.0004),
					WALFsyncs: nz(s.fsyncsPerSec, 100) * s.secs, WALFsyncSeconds: nz(s.fsyncsPerSec, 100) * s.secs * at(s.fsyncP50, k, 0.0002), PeerRTTP99: s.rtt, SecondsWithoutLead: at(s.noLeader, k, 0), LeaderChanges: s.leaderChanges,
					DiskWriteBytes: 4 << 20 * s.secs}
				ms := result.MemberSeries{Name: "m" + strconv.Itoa(k+1), Summary: sum}
				if s.leader != 0 {
					ms.Points = []result.ServerPoint{{UnixMillis: r.End.UnixMilli(), HasLeader: true, IsLeader: s.leader == k+1}}
				}
				r.Server.Members = append(r.Server.Members, ms)
			}
		}
		c.Runs = append(c.Runs, r)
		rps = append(rps, r.ThroughputRPS)
	}
	c.Summaries = []result.Summary{{Name: c.ID, Conns: 50, Clients: s.clients, Iterations: s.iterations, ThroughputRPS: result.MeanSDOf(rps),
		P50: result.MeanSD{Mean: s.p50}, P99: result.MeanSD{Mean: s.p50 * 3}}}
	if s.status == result.CellPending || s.status == result.CellFailed {
		c.Runs, c.Summaries = nil, nil
	}
	return c
}

func at(v []float64, i int, def float64) float64 {
	if i < len(v) {
		return v[i]
	}
	return def
}

func nz(v, def float64) float64 {
	if v == 0 {
		return def
	}
	return v
}

// experiment is a document with cells measured on a machine with cpus
// cores; local says etcdlab started the members there.
func experiment(cpus int, local bool, cells ...result.Cell) *result.Document {
	return &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment,
		Environment: result.Environment{CPUs: cpus, LocalCluster: local, Members: 3},
		Experiment:  &result.Experiment{Name: "test", Cells: cells}}
}

func TestCellBottleneck(t *testing.T) {
	t.Parallel()
	kill := []result.FaultEvent{{AtSeconds: 10, Action: "kill", Target: "leader", NewLeaderSeconds: 1.1}}
	slowDisk := result.Cell{ID: "slow/disk", Setup: "tmpfs", Workload: "disk", Status: result.CellOK, Disk: &result.Disk{Jobs: []result.DiskJob{
		{Name: "sequential fdatasync", Sync: "fdatasync", IOPS: 200, SyncLatency: &result.DiskLatency{Percentiles: []result.Percentile{{P: 50, Seconds: 0.004}, {P: 99, Seconds: 0.006}}}}}}}
	for _, tt := range []struct {
		name     string
		doc      *result.Document
		opts     Options
		resource string
		want     []string // in the statement
		figures  map[string]float64
	}{
		{"members use the shared cores", experiment(2, true, spec{clients: 10000, rps: 9000, p50: 0.5, cpu: []float64{0.7, 0.6, 0.6}}.cell()), Options{},
			ResourceMemberCPU, []string{"Member CPU limited throughput: at 10,000 clients the 3 members used 1.9 of the machine's 2 cores", "WAL fsync p99 ≤ 1.00 ms, in fsync about 2% of the run"},
			map[string]float64{"member_cpu_cores": 1.9, "cores": 2, "wal_fsync_p99_seconds": 0.0004}},
		{"load generator and members share the machine", experiment(2, true, spec{clients: 50000, rps: 9000, p50: 2, cpu: []float64{0.1, 0.1, 0.1}, load: 1.6}.cell()), Options{},
			ResourceClientCPU, []string{"The machine's CPU limited throughput, the load generator using most of it", "the 3 members used 0.3 and the load generator 1.6 of the 2 cores they share"},
			map[string]float64{"load_cpu_cores": 1.6}},
		{"other processes take the rest of the machine", experiment(2, true, spec{clients: 1000, rps: 6700, p50: 0.13, cpu: []float64{0.55, 0.55, 0.5}, load: 0.1, machine: 1.95}.cell()), Options{},
			ResourceMemberCPU, []string{"The machine's CPU limited throughput, the members using most of it: at 1,000 clients the 3 members used 1.6, the load generator 0.1 and other processes 0.2 of the 2 cores they share"},
			map[string]float64{"machine_cpu_cores": 1.95}},
		{"load generator on its own machine", experiment(4, false, spec{clients: 5000, rps: 9000, p50: 0.5, load: 3.6}.cell()), Options{},
			ResourceClientCPU, []string{"The load generator's CPU limited throughput: at 5,000 clients it used 3.6 of this machine's 4 cores"}, nil},
		{"load generator on one core of its machine", experiment(4, false, spec{clients: 5000, rps: 9000, p50: 0.5, load: 0.92, loadLimit: 1}.cell()), Options{},
			ResourceClientCPU, []string{"The load generator's CPU limited throughput: at 5,000 clients it used 0.9 of the 1 core its Go runtime could use (--cpus; the machine has 4)"},
			map[string]float64{"load_cores_limit": 1}},
		{"WAL busy", experiment(2, true, spec{clients: 1000, rps: 600, p50: 0.05, fsyncsPerSec: 150, fsyncP50: []float64{0.005, 0.005, 0.005}, fsyncP99: []float64{0.012, 0.012, 0.012}}.cell()), Options{},
			ResourceDisk, []string{"The disk limited throughput: at 1,000 clients the WAL fsynced 150 times a second at p50 5.00 ms, in fsync about 75% of the run", "WAL fsync p99 12.00 ms (etcd asks for under 10 ms)"},
			map[string]float64{"wal_busy": 0.75}},
		{"fsync rate at the disk job's IOPS", experiment(2, true, spec{clients: 1000, rps: 600, p50: 0.05, fsyncsPerSec: 180, fsyncP50: []float64{0.001, 0.001, 0.001}}.cell(), slowDisk), Options{},
			ResourceDisk, []string{"90% of the 200 fdatasyncs a second the disk job measured", "(the disk job's p99: 6.00 ms)"},
			map[string]float64{"disk_fsync_iops": 200}},
		{"emulated round trip", experiment(2, true, spec{clients: 1, rps: 43, p50: 0.023, params: map[string]string{"rtt": "20ms"}}.cell()), Options{},
			ResourceNetwork, []string{"the emulated round trip between members of 20.00 ms is 87% of the p50 latency of 23.00 ms", "the 3 members used 0.3 of the machine's 2 cores"},
			map[string]float64{"rtt_seconds": 0.020}},
		{"round trip from the options", experiment(2, true, spec{setup: "multicloud-3", clients: 1, rps: 10, p50: 0.1}.cell()), Options{RTTSeconds: map[string]float64{"multicloud-3": 0.08}},
			ResourceNetwork, []string{"emulated round trip between members of 80.00 ms"}, nil},
		{"emulated commit round trip of the leader", experiment(2, true, spec{setup: "multicloud-1", clients: 1, rps: 150, p50: 0.0055, leader: 1,
			commitRTT: map[string]float64{"m1": 0.0046, "m2": 0.0022, "m3": 0.0022}}.cell()), Options{},
			ResourceNetwork, []string{"the emulated round trip a commit waits for (m1 leading) of 4.60 ms is 84% of the p50 latency of 5.50 ms"}, map[string]float64{"rtt_seconds": 0.0046}},
		{"emulated write path of the leader", experiment(2, true, spec{setup: "multicloud-1", clients: 1, rps: 100, p50: 0.0096, leader: 3,
			commitRTT: map[string]float64{"m1": 0.0046, "m2": 0.0022, "m3": 0.0022}, writeRTT: map[string]float64{"m1": 0.0046, "m2": 0.0068, "m3": 0.0068}}.cell()), Options{},
			ResourceNetwork, []string{"the emulated round trips a write waits for (to its member, on to the leader m3, its commit) of 6.80 ms is 71% of the p50 latency of 9.60 ms"}, map[string]float64{"rtt_seconds": 0.0068}},
		{"emulated commit round trip, no leader seen: the median", experiment(2, true, spec{setup: "multicloud-1", clients: 1, rps: 150, p50: 0.0025,
			commitRTT: map[string]float64{"m1": 0.0046, "m2": 0.0022, "m3": 0.0022}}.cell()), Options{},
			ResourceNetwork, []string{"the emulated round trip between members of 2.20 ms"}, map[string]float64{"rtt_seconds": 0.0022}},
		{"fsync in etcd's lowest bucket is at most 1 ms", experiment(2, true, spec{clients: 10000, rps: 9000, p50: 0.5, cpu: []float64{0.7, 0.6, 0.6}, fsyncP99: []float64{0.001, 0.001, 0.001}}.cell()), Options{},
			ResourceMemberCPU, []string{"WAL fsync p99 ≤ 1.00 ms"}, nil},
		{"measured peer round trip in the lowest bucket", experiment(2, true, spec{clients: 1, rps: 40, p50: 0.00012, rtt: 0.0001}.cell()), Options{},
			ResourceNetwork, []string{"the members' peer round trip p99 (measured) of ≤ 100.0 µs"}, nil},
		{"measured peer round trip", experiment(2, true, spec{clients: 1, rps: 40, p50: 0.025, rtt: 0.02}.cell()), Options{},
			ResourceNetwork, []string{"the members' peer round trip p99 (measured) of 20.00 ms"}, nil},
		{"quota", experiment(2, true, spec{clients: 100, rps: 900, p50: 0.01, quota: 1234}.cell()), Options{},
			ResourceQuota, []string{"1,234 requests at 100 clients were refused with \"database space exceeded\""}, map[string]float64{"quota_errors": 1234}},
		{"fault", experiment(2, true, spec{clients: 100, rps: 900, p50: 0.01, clusterDown: 1.2, leaderChanges: 1, faults: kill, cpu: []float64{0.7, 0.6, 0.6}}.cell()), Options{},
			ResourceFault, []string{"A fault limited throughput: at 100 clients the cluster was unavailable for 1.2 s of the 30 s measured (canaries to every member failed) after kill leader at 10 s (new leader after 1.1 s); 1 leader change, 40 failed requests"},
			map[string]float64{"unavailable_seconds": 1.2}},
		{"timeouts without a fault or leader change are overload", experiment(2, true, spec{clients: 50000, rps: 900, p50: 5, clusterDown: 7.6, cpu: []float64{0.4, 0.4, 0.4}}.cell()), Options{},
			ResourceOverload, []string{"The load overwhelmed the cluster: at 50,000 clients no request to any member, canaries included, completed within the request timeout for 7.6 s of the 30 s measured, with no fault injected and no leader change; 40 failed requests"},
			map[string]float64{"unavailable_seconds": 7.6}},
		{"a short fault is mentioned, not named", experiment(2, true, spec{clients: 100, rps: 900, p50: 0.01, clusterDown: 0.3, faults: kill, cpu: []float64{0.7, 0.6, 0.6}}.cell()), Options{},
			ResourceMemberCPU, []string{"The faults (kill leader at 10 s (new leader after 1.1 s)) left the cluster unavailable for 300.00 ms."}, nil},
		{"one member without a leader is not a fault", experiment(2, true, spec{clients: 100, rps: 900, p50: 0.01, noLeader: []float64{5, 0, 0}, cpu: []float64{0.7, 0.6, 0.6}}.cell()), Options{},
			ResourceMemberCPU, nil, nil},
		{"a majority without a leader is", experiment(2, true, spec{clients: 100, rps: 900, p50: 0.01, noLeader: []float64{5, 4, 0}}.cell()), Options{},
			ResourceFault, []string{"unavailable for 4 s of the 30 s measured (a majority of members had no leader)"}, nil},
		{"open loop followed its rate", experiment(2, true, spec{clients: 100, rate: 1000, rps: 990, p50: 0.002}.cell()), Options{},
			ResourceNone, []string{"the load was below capacity: 1,000 req/s offered, 990 achieved"}, map[string]float64{"offered_rps": 1000}},
		{"more clients reached more", experiment(2, true, spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{0.3, 0.3, 0.3}}.cell(),
			spec{clients: 1000, rps: 7000, p50: 0.14, cpu: []float64{0.6, 0.6, 0.6}}.cell()), Options{},
			ResourceNone, []string{"at 100 clients 2,000 req/s, while 1,000 clients reached 7,000 req/s in the same setup"}, map[string]float64{"higher_load_throughput_rps": 7000}},
		{"no server metrics", experiment(2, true, spec{clients: 100, rps: 2000, p50: 0.05, noServer: true}.cell()), Options{},
			ResourceUnknown, []string{"the members' metrics were not scraped"}, nil},
		{"nothing saturated, load generator unmeasured", experiment(2, true, spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{0.4, 0.4, 0.4}}.cell()), Options{},
			ResourceUnknown, []string{"no measured resource was saturated at 100 clients (2,000 req/s): the 3 members used 1.2 of the machine's 2 cores", "the load generator shares the machine and its CPU was not measured"}, nil},
		{"live members, cores unknown", experiment(2, false, spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{1.9, 1.9, 1.9}}.cell()), Options{},
			ResourceUnknown, []string{"the 3 members used 5.7 cores (their machines' cores are not known)"}, nil},
		{"live members, cores given", experiment(2, false, spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{3.7, 1.9, 1.9}}.cell()), Options{CoresPerMember: 4},
			ResourceMemberCPU, []string{"the busiest member used 3.7 of its machine's 4 cores (the 3 members together 7.5)"}, nil},
		{"live members, cores from the experiment file", experiment(2, false, func() result.Cell {
			c := spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{3.7, 1.9, 1.9}}.cell()
			c.Environment.MemberCores = 4
			return c
		}()), Options{},
			ResourceMemberCPU, []string{"the busiest member used 3.7 of its machine's 4 cores"}, nil},
		{"failed", experiment(2, true, spec{clients: 100, status: result.CellFailed, err: "m2 did not start"}.cell()), Options{},
			ResourceUnknown, []string{"Unknown: the cell failed: m2 did not start."}, nil},
		{"pending", experiment(2, true, spec{clients: 100, status: result.CellPending}.cell()), Options{},
			ResourceUnknown, []string{"has not run yet"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := Cell(tt.doc, 0, tt.opts)
			if b == nil {
				t.Fatal("no statement")
			}
			if b.Resource != tt.resource {
				t.Errorf("resource %s, want %s: %s", b.Resource, tt.resource, b.Statement)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.Statement, w) {
					t.Errorf("statement lacks %q:\n%s", w, b.Statement)
				}
			}
			for k, v := range tt.figures {
				if got, ok := b.Figures[k]; !ok || !near(got, v) {
					t.Errorf("figure %s = %g (present %v), want %g", k, got, ok, v)
				}
			}
		})
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9*(1+b) && d > -1e-9*(1+b) || d*d < 1e-6 }

// TestDiskJobCellHasNoStatement: a disk job sends no requests, so nothing
// limited their throughput.
func TestDiskJobCellHasNoStatement(t *testing.T) {
	t.Parallel()
	doc := experiment(2, true, result.Cell{ID: "disk", Setup: "tmpfs", Workload: "disk", Status: result.CellOK, Disk: &result.Disk{}})
	if b := Cell(doc, 0, Options{}); b != nil {
		t.Fatalf("%+v", b)
	}
}

// TestQuorumFigures: fsync and round trip are the figures of the member a
// commit waits for (the second fastest of three), not the slowest's.
func TestQuorumFigures(t *testing.T) {
	t.Parallel()
	c := spec{clients: 10, rps: 100, p50: 0.01, fsyncP99: []float64{0.05, 0.001, 0.0015}, cpu: []float64{0.2, 0.3, 0.4}}.cell()
	m := result.MeasureCell(&c)
	if m.WALFsyncP99 != 0.0015 || m.WALFsyncP99Slowest != 0.05 || !near(m.MemberCPUCores, 0.9) || !near(m.MemberCPUMax, 0.4) || m.Members != 3 {
		t.Fatalf("%+v", m)
	}
	b := Cell(experiment(2, true, c), 0, Options{})
	if !strings.Contains(b.Statement, "WAL fsync p99 1.50 ms") || !strings.Contains(b.Statement, "(slowest member's p99 50.00 ms)") {
		t.Fatal(b.Statement)
	}
}

// TestMeasureIterations: throughput comes from the summary's mean and
// spread; server figures are averaged over runs.
func TestMeasureIterations(t *testing.T) {
	t.Parallel()
	c := spec{clients: 1000, rps: 1000, p50: 0.01, iterations: 3, load: 0.5}.cell()
	c.Runs[2].Server.Members[0].Summary.CPUCoresMean = 0.4 // 0.1, 0.1, 0.4 in run 3 -> runs average (0.3+0.3+0.6)/3
	m := result.MeasureCell(&c)
	if m.Runs != 3 || m.Iterations != 3 || !near(m.Throughput.Mean, 1010) || m.Throughput.Stddev == 0 || !near(m.MemberCPUCores, 0.4) || !near(m.LoadCPUCores, 0.5) || m.RunSeconds != 90 {
		t.Fatalf("%+v", m)
	}
}

func TestSweepBottleneck(t *testing.T) {
	t.Parallel()
	cells := []result.Cell{
		spec{setup: "tmpfs", clients: 100, rps: 2000, p50: 0.05}.cell(),
		spec{setup: "tmpfs", clients: 1000, rps: 7000, p50: 0.14, cpu: []float64{0.5, 0.5, 0.5}}.cell(),
		spec{setup: "tmpfs", clients: 10000, rps: 7400, p50: 1.3, cpu: []float64{0.65, 0.6, 0.6}}.cell(),
		spec{setup: "slow", clients: 100, rps: 1800, p50: 0.055}.cell(),
		spec{setup: "slow", clients: 1000, rps: 2500, p50: 0.4, fsyncsPerSec: 190, fsyncP50: []float64{0.004, 0.004, 0.004}, fsyncP99: []float64{0.008, 0.008, 0.008}}.cell(),
		spec{setup: "slow", clients: 10000, rps: 2600, p50: 3.8, fsyncsPerSec: 195, fsyncP50: []float64{0.004, 0.004, 0.004}, fsyncP99: []float64{0.009, 0.009, 0.009}}.cell(),
		spec{setup: "slow", clients: 50000, status: result.CellFailed, err: "out of memory"}.cell(),
	}
	doc := experiment(2, true, cells...)
	sw := result.SweepOf(doc.Experiment)
	if sw.Param != "clients" || len(sw.Lines) != 2 || sw.Lines[0].Name != "tmpfs" || len(sw.Lines[1].Cells) != 4 || sw.Lines[1].X[3] != 50000 {
		t.Fatalf("%+v", sw)
	}
	Fill(doc, Options{})
	var got []string
	for _, c := range doc.Experiment.Cells {
		got = append(got, c.Bottleneck.Resource)
	}
	if want := "none unknown member-cpu none disk disk unknown"; strings.Join(got, " ") != want {
		t.Fatalf("cells: %v, want %s", got, want)
	}
	b := doc.Experiment.Bottleneck
	for _, w := range []string{
		"The limit at the highest load differed between setups.",
		"tmpfs: none at 100 clients, unknown at 1,000 clients, member-cpu at 10,000 clients; at most 7,400 req/s (10,000 clients).",
		"slow: none at 100 clients, disk from 1,000 to 10,000 clients; at most 2,600 req/s (10,000 clients).",
		"Highest throughput against tmpfs (7,400 req/s): slow 2,600 req/s (-64.9%).",
		"The disk limited slow from 1,000 to 10,000 clients.",
		"1 cell could not be judged",
	} {
		if !strings.Contains(b.Statement, w) {
			t.Errorf("sweep statement lacks %q:\n%s", w, b.Statement)
		}
	}
	if b.Resource != ResourceMixed {
		t.Errorf("resource %s", b.Resource)
	}
	// The same limit everywhere is named, and a disk that limited nothing is said so.
	doc = experiment(2, true, cells[0], cells[2])
	Fill(doc, Options{})
	if b := doc.Experiment.Bottleneck; b.Resource != ResourceMemberCPU || !strings.Contains(b.Statement, "every setup was limited by the members' CPU") || !strings.Contains(b.Statement, "The disk limited no cell.") {
		t.Fatalf("%+v", b)
	}
	// A statement already there is kept.
	doc.Experiment.Cells[0].Bottleneck = &result.Bottleneck{Resource: ResourceNetwork, Statement: "kept"}
	doc.Experiment.Bottleneck = nil
	Fill(doc, Options{})
	if doc.Experiment.Cells[0].Bottleneck.Statement != "kept" || !strings.Contains(doc.Experiment.Bottleneck.Statement, "tmpfs: network at 100 clients, member-cpu at 10,000 clients") {
		t.Fatalf("%+v", doc.Experiment.Bottleneck)
	}
}

// TestSweepWithoutParam: scenarios side by side (no numeric sweep) each
// get their statement.
func TestSweepWithoutParam(t *testing.T) {
	t.Parallel()
	var cells []result.Cell
	for i, rtt := range []string{"1ms", "5ms", "20ms"} {
		c := spec{setup: "multicloud-" + strconv.Itoa(i), clients: 1, rps: 40, p50: 0.025, params: map[string]string{"rtt": rtt}}.cell()
		cells = append(cells, c)
	}
	doc := experiment(2, true, cells...)
	sw := result.SweepOf(doc.Experiment)
	if sw.Param != "" || len(sw.Lines) != 3 || sw.Lines[2].Name != "multicloud-2 rtt=20ms" {
		t.Fatalf("%+v", sw)
	}
	b := Sweep(doc, Options{})
	if b.Resource != ResourceMixed || !strings.Contains(b.Statement, "multicloud-0 rtt=1ms: unknown; at most 40 req/s.") || !strings.Contains(b.Statement, "multicloud-2 rtt=20ms: network; at most 40 req/s.") ||
		strings.Contains(b.Statement, "The disk limited") {
		t.Fatal(b.Statement)
	}
}
