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

// experiment is a document with cells measured on a 2-core machine where
// etcdlab started the members.
func experiment(cells ...result.Cell) *result.Document {
	return &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment,
		Environment: result.Environment{CPUs: 2, LocalCluster: true, Members: 3},
		Experiment:  &result.Experiment{Name: "test", Cells: cells}}
}

func near(a, b float64) bool { d := a - b; return d < 1e-9*(1+b) && d > -1e-9*(1+b) || d*d < 1e-6 }

// TestDiskJobCellHasNoStatement: a disk job sends no requests, so nothing
// limited their throughput.
func TestDiskJobCellHasNoStatement(t *testing.T) {
	t.Parallel()
	doc := experiment(result.Cell{ID: "disk", Setup: "tmpfs", Workload: "disk", Status: result.CellOK, Disk: &result.Disk{}})
	if b := Cell(doc, 0, Options{}); b != nil {
		t.Fatalf("%+v", b)
	}
}

// TestSizeCellHasNoStatement: a size cell's requests are its probes'
// (each with its own bottleneck in the answer): the cell has no statement
// and the sweep none for it.
func TestSizeCellHasNoStatement(t *testing.T) {
	t.Parallel()
	doc := experiment(result.Cell{ID: "here/small", Setup: "here", Workload: "small", Status: result.CellOK, Size: &result.Size{}})
	if b := Cell(doc, 0, Options{}); b != nil {
		t.Fatalf("%+v", b)
	}
	if b := Sweep(doc, Options{}); b != nil {
		t.Fatalf("sweep %+v", b)
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
	b := Cell(experiment(c), 0, Options{})
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

// TestSweepLines: a sweep's lines are its setups, each with its cells in
// the order of the swept value (a failed cell keeps its place); scenarios
// side by side (no numeric sweep) are a line each. What the judge says of
// them is in testdata/cases/sweep-*.golden.
func TestSweepLines(t *testing.T) {
	t.Parallel()
	cells := []result.Cell{
		spec{setup: "tmpfs", clients: 100, rps: 2000, p50: 0.05}.cell(),
		spec{setup: "tmpfs", clients: 1000, rps: 7000, p50: 0.14}.cell(),
		spec{setup: "tmpfs", clients: 10000, rps: 7400, p50: 1.3}.cell(),
		spec{setup: "slow", clients: 100, rps: 1800, p50: 0.055}.cell(),
		spec{setup: "slow", clients: 1000, rps: 2500, p50: 0.4}.cell(),
		spec{setup: "slow", clients: 10000, rps: 2600, p50: 3.8}.cell(),
		spec{setup: "slow", clients: 50000, status: result.CellFailed, err: "out of memory"}.cell(),
	}
	sw := result.SweepOf(experiment(cells...).Experiment)
	if sw.Param != "clients" || len(sw.Lines) != 2 || sw.Lines[0].Name != "tmpfs" || len(sw.Lines[1].Cells) != 4 || sw.Lines[1].X[3] != 50000 {
		t.Fatalf("%+v", sw)
	}
	cells = nil
	for i, rtt := range []string{"1ms", "5ms", "20ms"} {
		cells = append(cells, spec{setup: "multicloud-" + strconv.Itoa(i), clients: 1, rps: 40, p50: 0.025, params: map[string]string{"rtt": rtt}}.cell())
	}
	sw = result.SweepOf(experiment(cells...).Experiment)
	if sw.Param != "" || len(sw.Lines) != 3 || sw.Lines[2].Name != "multicloud-2 rtt=20ms" {
		t.Fatalf("%+v", sw)
	}
}

// TestMemberBudget: members on a 0.5-core budget each, the busiest at
// 0.49 cores on a machine mostly idle, were limited by their budget, and
// the statement says so; without the budget the same figures are not a
// CPU limit.
func TestMemberBudget(t *testing.T) {
	t.Parallel()
	c := spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{0.49, 0.3, 0.3}}.cell()
	c.Environment.LocalCluster, c.Environment.CPUs = true, 16
	c.Environment.MemberCPUs = map[string]float64{"m1": 0.5, "m2": 0.5, "m3": 0.5}
	b := Cell(experiment(c), 0, Options{})
	if b.Resource != ResourceMemberCPU || !strings.Contains(b.Statement, "The members' CPU budget limited throughput, not this machine") ||
		!strings.Contains(b.Statement, "used 0.49 cores of its 0.5-core budget") {
		t.Fatalf("%s: %s", b.Resource, b.Statement)
	}
	c.Environment.MemberCPUs = nil
	if b := Cell(experiment(c), 0, Options{}); b.Resource == ResourceMemberCPU {
		t.Errorf("without a budget, 0.49 cores of 16 limited it: %s", b.Statement)
	}
}

// TestLoadBudget: the load generator at or near its CPU budget, the
// members not at theirs (or without one), was limited by that budget; a
// load generator well below it, or members at their own budget, are not.
func TestLoadBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		load       float64 // the load generator's cores
		budget     float64 // its budget
		memberCPUs float64 // each member's budget (0: none)
		want       bool    // the load budget is the statement
	}{
		{name: "at the budget", load: 0.29, budget: 0.3, want: true},
		{name: "at the budget, members budgeted but below", load: 0.29, budget: 0.3, memberCPUs: 2, want: true},
		{name: "well below the budget", load: 0.1, budget: 0.3},
		{name: "members at theirs too", load: 0.29, budget: 0.3, memberCPUs: 0.5},
		{name: "no budget", load: 0.29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := spec{clients: 100, rps: 2000, p50: 0.05, cpu: []float64{0.49, 0.3, 0.3}, load: tc.load}.cell()
			c.Environment.LocalCluster, c.Environment.CPUs, c.Environment.LoadCPUs = true, 16, tc.budget
			if tc.memberCPUs > 0 {
				c.Environment.MemberCPUs = map[string]float64{"m1": tc.memberCPUs, "m2": tc.memberCPUs, "m3": tc.memberCPUs}
			}
			b := Cell(experiment(c), 0, Options{})
			got := strings.Contains(b.Statement, "The load generator's CPU budget limited throughput")
			if got != tc.want {
				t.Fatalf("load budget statement %v, want %v: %s: %s", got, tc.want, b.Resource, b.Statement)
			}
			if got && (b.Resource != ResourceClientCPU || !strings.Contains(b.Statement, "used 0.29 cores of its 0.3-core budget")) {
				t.Errorf("%s: %s", b.Resource, b.Statement)
			}
		})
	}
}
