package result

import "slices"

// MetricName is how an experiment file's published figures (`metric:`),
// a result document's article figures (Published.Metric) and the
// bottleneck statements' figures (Bottleneck.Figures) name one figure of
// a cell. Go code names metrics only through the constants below, so the
// vocabulary is written once, in this file.
type MetricName string

// The figures an experiment file may publish, in the order messages and
// docs/experiments.md list them (PublishedMetrics).
const (
	MetricThroughput       MetricName = "throughput_rps"
	MetricTotal            MetricName = "total_seconds"
	MetricLatencyMean      MetricName = "avg_seconds"
	MetricLatencyP10       MetricName = "p10_seconds"
	MetricLatencyP25       MetricName = "p25_seconds"
	MetricLatencyP50       MetricName = "p50_seconds"
	MetricLatencyP75       MetricName = "p75_seconds"
	MetricLatencyP90       MetricName = "p90_seconds"
	MetricLatencyP95       MetricName = "p95_seconds"
	MetricLatencyP99       MetricName = "p99_seconds"
	MetricLatencyP999      MetricName = "p999_seconds"
	MetricDiskFsyncP99     MetricName = "fsync_p99_seconds"
	MetricDiskIOPS         MetricName = "fsync_iops"
	MetricWALFsyncP99      MetricName = "wal_fsync_p99_seconds"
	MetricBackendCommitP99 MetricName = "backend_commit_p99_seconds"
	MetricPeerRTTP99       MetricName = "peer_rtt_p99_seconds"
	MetricPeerRTTLowest    MetricName = "peer_rtt_lowest_bucket_seconds"
	MetricPeerRTTHighest   MetricName = "peer_rtt_highest_bucket_seconds"
	MetricMemberCPU        MetricName = "member_cpu_cores"
	MetricSlowApplies      MetricName = "slow_applies"
	MetricSlowAppliesRun   MetricName = "slow_applies_per_member_run"
	MetricSlowAppliesMax   MetricName = "slow_applies_member_run_max"
	MetricTimeToReady      MetricName = "time_to_ready_seconds"
	MetricKubeEtcdLowest   MetricName = "kube_etcd_request_lowest_bucket_seconds"
	MetricKubeEtcdHighest  MetricName = "kube_etcd_request_highest_bucket_seconds"
)

// Figures of a cell that are not published: render reads the first two
// in stored documents' article figures, the bottleneck statements name
// the others (Measures' figures, under Measures' JSON names).
const (
	MetricLatencyMin    MetricName = "min_seconds"
	MetricLatencyMax    MetricName = "max_seconds"
	MetricLoadCPU       MetricName = "load_cpu_cores"
	MetricMachineCPU    MetricName = "machine_cpu_cores"
	MetricWALFsyncP50   MetricName = "wal_fsync_p50_seconds"
	MetricWALFsyncsRate MetricName = "wal_fsyncs_per_second"
	MetricWALBusy       MetricName = "wal_busy"
	MetricDBSize        MetricName = "db_size_bytes"
	MetricRunSeconds    MetricName = "run_seconds"
	MetricQuotaErrors   MetricName = "quota_errors"
	MetricLoadCores     MetricName = "load_cores_limit"
)

// Better says which way a metric improves.
type Better int

// Directions of improvement.
const (
	HigherIsBetter Better = iota + 1 // throughput
	LowerIsBetter                    // latencies, times, resources used
)

// Units of the metrics.
const (
	UnitRate    = "req/s"
	UnitSeconds = "s"
	UnitIOPS    = "IOPS"
	UnitCores   = "cores"
	UnitCount   = "count"
	UnitRatio   = "ratio"
	UnitBytes   = "bytes"
	UnitPerSec  = "per second"
)

// Form says what kind of figure a metric is, so that a report sets like
// beside like: an article's bucket label beside our bucket label, never
// beside a percentile interpolated inside the buckets; one member's count
// beside one member's count, never beside a sum over members and runs.
type Form int

// Forms of figures.
const (
	FormValue      Form = iota // a rate, a time, a mean, a size, a count of the whole cell
	FormPercentile             // a percentile (interpolated inside a histogram's buckets for a server one)
	FormBucket                 // a histogram bucket's upper bound (le), as a dashboard labels it
	FormMemberSum              // a count summed over the members and the runs
	FormOneMember              // a count of one member in one run
)

// Metric is one row of the metrics table: a figure of an experiment cell,
// how people call it, its unit, which way it improves and how it is
// taken from the cell. Rows are plain values; their functions are pure.
type Metric struct {
	Name MetricName
	// Aliases are other names stored documents use for it (an article's
	// mean as mean_seconds).
	Aliases []MetricName
	// What is how reports name it: "throughput", "latency p50".
	What   string
	Unit   string
	Better Better
	// Form is what kind of figure it is (FormValue when unset).
	Form Form
	// Bounds are a FormBucket metric's histogram bounds, ascending: how
	// many buckets apart two of its figures are.
	Bounds []float64
	// Floor is the lowest bucket's bound of the histogram a server
	// quantile comes from: a value on it means "at most" (0: none).
	Floor float64
	// Published says an experiment file may publish the article's
	// value of it (PublishedMetrics).
	Published bool
	// WholeRun says the figure is the duration of a whole run (a run's
	// total time, the time to every pod Ready), so a difference between
	// two setups is seconds added to that run; a latency, a percentile
	// or a rate is never shown so (render compares those as a % or a
	// ratio).
	WholeRun bool
	// Of is the cell's figure, m being MeasureCell(c); false when the
	// cell did not measure it.
	Of func(c *Cell, m *Measures) (float64, bool)
	// Spread, if set, is the figure across the cell's iterations (mean
	// and sample stddev), which an experiment's % tables compare.
	Spread func(c *Cell, m *Measures) (MeanSD, bool)
	// Samples, if set, is how many measurements a FormPercentile figure
	// was read from and what one is called ("fdatasyncs"), so a report
	// can say when a tail percentile rests on a handful of them.
	Samples func(c *Cell) (n int64, what string, ok bool)
	// Percentile is a FormPercentile figure's percentile (99 for a p99),
	// used with Samples.
	Percentile float64
}

// Beyond is how many of n measurements lie above the p-th percentile as
// an HDR histogram reads it (the value at the round(p/100·n)-th
// smallest): a p99 of 209 has 2 above it.
func Beyond(n int64, p float64) int64 {
	return n - int64(p/100*float64(n)+0.5)
}

// Metrics is the table, published metrics first, in PublishedMetrics'
// order.
func Metrics() []Metric {
	ran := func(f func(m *Measures) float64) func(*Cell, *Measures) (float64, bool) {
		return func(_ *Cell, m *Measures) (float64, bool) { return f(m), m.Runs > 0 }
	}
	server := func(f func(m *Measures) float64) func(*Cell, *Measures) (float64, bool) {
		return func(_ *Cell, m *Measures) (float64, bool) { return f(m), m.Runs > 0 && m.ServerRuns > 0 }
	}
	latency := func(f func(l Latency) float64) func(*Cell, *Measures) (float64, bool) {
		return func(c *Cell, m *Measures) (float64, bool) { return runsMean(c, m, f) }
	}
	bench := func(f func(m *Measures) MeanSD) func(*Cell, *Measures) (MeanSD, bool) {
		return func(c *Cell, m *Measures) (MeanSD, bool) {
			if kubeCell(c) {
				return MeanSD{}, false
			}
			return f(m), true
		}
	}
	return []Metric{
		{Name: MetricThroughput, What: "throughput", Unit: UnitRate, Better: HigherIsBetter, Published: true,
			Of: ran(func(m *Measures) float64 { return m.Throughput.Mean }), Spread: bench(func(m *Measures) MeanSD { return m.Throughput })},
		{Name: MetricTotal, What: "total time", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, WholeRun: true,
			Of: ran(func(m *Measures) float64 { return m.RunSeconds / float64(m.Runs) })},
		{Name: MetricLatencyMean, Aliases: []MetricName{"mean_seconds"}, What: "latency mean", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: latency(func(l Latency) float64 { return l.Mean }), Spread: bench(func(m *Measures) MeanSD { return m.Mean })},
		{Name: MetricLatencyP10, Form: FormPercentile, What: "latency p10", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: latency(func(l Latency) float64 { return l.P10 })},
		{Name: MetricLatencyP25, Form: FormPercentile, What: "latency p25", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: latency(func(l Latency) float64 { return l.P25 })},
		{Name: MetricLatencyP50, Form: FormPercentile, What: "latency p50", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: ran(func(m *Measures) float64 { return m.P50.Mean }), Spread: bench(func(m *Measures) MeanSD { return m.P50 })},
		{Name: MetricLatencyP75, Form: FormPercentile, What: "latency p75", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: latency(func(l Latency) float64 { return l.P75 })},
		{Name: MetricLatencyP90, Form: FormPercentile, What: "latency p90", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: latency(func(l Latency) float64 { return l.P90 })},
		{Name: MetricLatencyP95, Form: FormPercentile, What: "latency p95", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: latency(func(l Latency) float64 { return l.P95 })},
		{Name: MetricLatencyP99, Form: FormPercentile, What: "latency p99", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: ran(func(m *Measures) float64 { return m.P99.Mean }), Spread: bench(func(m *Measures) MeanSD { return m.P99 })},
		{Name: MetricLatencyP999, Form: FormPercentile, Aliases: []MetricName{"p99.9_seconds"}, What: "latency p99.9", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: latency(func(l Latency) float64 { return l.P999 })},
		{Name: MetricDiskFsyncP99, Form: FormPercentile, What: "fdatasync p99 (disk job)", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, Of: diskFsyncP99,
			Samples: diskSyncs, Percentile: 99},
		{Name: MetricDiskIOPS, What: "fdatasync IOPS (disk job)", Unit: UnitIOPS, Better: HigherIsBetter, Published: true, Of: diskIOPS},
		{Name: MetricWALFsyncP99, Form: FormPercentile, What: "WAL fsync p99", Unit: UnitSeconds, Better: LowerIsBetter, Floor: LowestDiskBucket, Published: true,
			Of: server(func(m *Measures) float64 { return m.WALFsyncP99 })},
		{Name: MetricBackendCommitP99, Form: FormPercentile, What: "backend commit p99", Unit: UnitSeconds, Better: LowerIsBetter, Floor: LowestDiskBucket, Published: true,
			Of: server(func(m *Measures) float64 { return m.BackendCommitP99 })},
		{Name: MetricPeerRTTP99, Form: FormPercentile, What: "peer round trip p99", Unit: UnitSeconds, Better: LowerIsBetter, Floor: LowestPeerRTTBucket, Published: true,
			Of: func(_ *Cell, m *Measures) (float64, bool) {
				return m.PeerRTTP99, m.Runs > 0 && m.ServerRuns > 0 && m.PeerRTTP99 > 0
			}},
		{Name: MetricPeerRTTLowest, Form: FormBucket, Bounds: PeerRTTBuckets(), What: "peer round trip's lowest bucket (le), any member", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: func(_ *Cell, m *Measures) (float64, bool) { return m.PeerRTTLowestBucket, m.PeerRTTLowestBucket > 0 }},
		{Name: MetricPeerRTTHighest, Form: FormBucket, Bounds: PeerRTTBuckets(), What: "peer round trip's highest bucket (le), any member", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: func(_ *Cell, m *Measures) (float64, bool) { return m.PeerRTTHighestBucket, m.PeerRTTHighestBucket > 0 }},
		{Name: MetricMemberCPU, What: "members' CPU (cores)", Unit: UnitCores, Better: LowerIsBetter, Published: true,
			Of: server(func(m *Measures) float64 { return m.MemberCPUCores })},
		{Name: MetricSlowApplies, Form: FormMemberSum, What: "slow applies, all members and runs summed", Unit: UnitCount, Better: LowerIsBetter, Published: true,
			Of: server(func(m *Measures) float64 { return m.SlowApplies })},
		{Name: MetricSlowAppliesRun, Form: FormOneMember, What: "slow applies per member per run (mean)", Unit: UnitCount, Better: LowerIsBetter, Published: true,
			Of: server(func(m *Measures) float64 { return m.SlowAppliesPerMemberRun })},
		{Name: MetricSlowAppliesMax, Form: FormOneMember, What: "slow applies of one member in one run (the most)", Unit: UnitCount, Better: LowerIsBetter, Published: true,
			Of: server(func(m *Measures) float64 { return m.SlowAppliesMemberRunMax })},
		{Name: MetricTimeToReady, What: "time to every pod Ready", Unit: UnitSeconds, Better: LowerIsBetter, Published: true, WholeRun: true,
			Of: func(c *Cell, m *Measures) (float64, bool) {
				sd, ok := timeToReady(c)
				return sd.Mean, ok && m.Runs > 0
			},
			Spread: func(c *Cell, _ *Measures) (MeanSD, bool) { return timeToReady(c) }},
		{Name: MetricKubeEtcdLowest, Form: FormBucket, Bounds: KubeEtcdRequestBuckets(), What: "emulated apiservers' etcd requests: lowest bucket (le)", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: func(c *Cell, _ *Measures) (float64, bool) { lo, _, ok := kubeEtcdBuckets(c); return lo, ok }},
		{Name: MetricKubeEtcdHighest, Form: FormBucket, Bounds: KubeEtcdRequestBuckets(), What: "emulated apiservers' etcd requests: highest bucket (le)", Unit: UnitSeconds, Better: LowerIsBetter, Published: true,
			Of: func(c *Cell, _ *Measures) (float64, bool) { _, hi, ok := kubeEtcdBuckets(c); return hi, ok }},

		{Name: MetricLatencyMin, What: "latency min", Unit: UnitSeconds, Better: LowerIsBetter, Of: latency(func(l Latency) float64 { return l.Min })},
		{Name: MetricLatencyMax, What: "latency max", Unit: UnitSeconds, Better: LowerIsBetter, Of: latency(func(l Latency) float64 { return l.Max })},
		{Name: MetricLoadCPU, What: "load generator's CPU (cores)", Unit: UnitCores, Better: LowerIsBetter,
			Of: func(_ *Cell, m *Measures) (float64, bool) { return m.LoadCPUCores, m.LoadCPURuns > 0 }},
		{Name: MetricMachineCPU, What: "machine's CPU (cores)", Unit: UnitCores, Better: LowerIsBetter,
			Of: func(_ *Cell, m *Measures) (float64, bool) { return m.MachineCPUCores, m.MachineCPURuns > 0 }},
		{Name: MetricWALFsyncP50, Form: FormPercentile, What: "WAL fsync p50", Unit: UnitSeconds, Better: LowerIsBetter, Floor: LowestDiskBucket,
			Of: server(func(m *Measures) float64 { return m.WALFsyncP50 })},
		{Name: MetricWALFsyncsRate, What: "WAL fsyncs per second", Unit: UnitPerSec, Better: LowerIsBetter,
			Of: server(func(m *Measures) float64 { return m.WALFsyncsPerSecond })},
		{Name: MetricWALBusy, What: "share of the run in WAL fsync", Unit: UnitRatio, Better: LowerIsBetter,
			Of: server(func(m *Measures) float64 { return m.WALBusy })},
		{Name: MetricDBSize, What: "database size", Unit: UnitBytes, Better: LowerIsBetter,
			Of: server(func(m *Measures) float64 { return m.DBSizeBytes })},
		{Name: MetricRunSeconds, What: "measured runs' duration", Unit: UnitSeconds, Better: LowerIsBetter,
			Of: ran(func(m *Measures) float64 { return m.RunSeconds })},
		{Name: MetricQuotaErrors, What: "requests refused for the backend quota", Unit: UnitCount, Better: LowerIsBetter,
			Of: ran(func(m *Measures) float64 { return float64(m.QuotaErrors) })},
		{Name: MetricLoadCores, What: "cores the load generator's Go runtime could use (GOMAXPROCS)", Unit: UnitCores, Better: HigherIsBetter,
			Of: func(_ *Cell, m *Measures) (float64, bool) { return float64(m.LoadCoresLimit), m.LoadCoresLimit > 0 }},
	}
}

// MetricOf is the row named name (or one of its aliases).
func MetricOf(name string) (Metric, bool) {
	for _, m := range Metrics() {
		if string(m.Name) == name || slices.Contains(m.Aliases, MetricName(name)) {
			return m, true
		}
	}
	return Metric{}, false
}

// Metric is n's row (the zero Metric for a name the table lacks; every
// constant has a row).
func (n MetricName) Metric() Metric {
	m, _ := MetricOf(string(n))
	return m
}

// Names are the metric's name and its aliases.
func (m Metric) Names() []string {
	out := []string{string(m.Name)}
	for _, a := range m.Aliases {
		out = append(out, string(a))
	}
	return out
}

// PublishedMetrics are the figures a Published may name: the bench
// summary's (throughput and latency percentiles across iterations), the
// server's (averaged over runs, the member a commit waits for), the disk
// job's, and the Kubernetes workload's time to every pod Ready (mean over
// the iterations that reached it). docs/experiments.md lists them; render
// shows ours beside each.
func PublishedMetrics() []string {
	var out []string
	for _, m := range Metrics() {
		if m.Published {
			out = append(out, string(m.Name))
		}
	}
	return out
}

// runsMean is the mean of a latency figure over a cell's runs that sent
// requests, for a cell that ran.
func runsMean(c *Cell, m *Measures, f func(l Latency) float64) (float64, bool) {
	if m.Runs == 0 {
		return 0, false
	}
	var sum float64
	n := 0
	for _, r := range c.Runs {
		if r.Requests > 0 {
			sum += f(r.Latency)
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}

// timeToReady is a kube cell's time to every pod Ready across the runs
// that reached it.
func timeToReady(c *Cell) (MeanSD, bool) {
	var vals []float64
	for _, r := range c.Runs {
		if r.Kube != nil && r.Kube.TimeToReadySeconds > 0 {
			vals = append(vals, r.Kube.TimeToReadySeconds)
		}
	}
	return MeanSDOf(vals), len(vals) > 0
}

// kubeCell reports whether a cell ran the Kubernetes workload.
func kubeCell(c *Cell) bool {
	return slices.ContainsFunc(c.Runs, func(r Run) bool { return r.Kube != nil })
}

// diskFsyncP99 is the disk job's first job's fdatasync p99.
func diskFsyncP99(c *Cell, _ *Measures) (float64, bool) {
	if c.Disk == nil || len(c.Disk.Jobs) == 0 {
		return 0, false
	}
	v := c.Disk.Jobs[0].SyncLatency.At(99)
	return v, v > 0
}

// diskSyncs is how many syncs the disk job's first job timed.
func diskSyncs(c *Cell) (int64, string, bool) {
	if c.Disk == nil || len(c.Disk.Jobs) == 0 {
		return 0, "", false
	}
	j := c.Disk.Jobs[0]
	what := j.Sync + "s"
	if j.Sync == "" {
		what = "syncs"
	}
	return j.Ops, what, j.Ops > 0
}

// diskIOPS is the disk job's first job's IOPS.
func diskIOPS(c *Cell, _ *Measures) (float64, bool) {
	if c.Disk == nil || len(c.Disk.Jobs) == 0 {
		return 0, false
	}
	v := c.Disk.Jobs[0].IOPS
	return v, v > 0
}
