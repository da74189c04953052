package result

import "time"

// KindExperiment is the kind of `etcdlab experiment run` documents: one
// document for the whole experiment, its cells' runs in Experiment.Cells.
const KindExperiment = "experiment"

// Experiment is one run of an experiment file: a matrix of cluster setups
// and workloads, each combination a cell measured on its own cluster
// (unless the file lets cells share one).
type Experiment struct {
	// Name is the built-in's name or the file's base name; Title and
	// Source say what it reproduces (a field report).
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Source  string `json:"source,omitempty"`
	Profile string `json:"profile,omitempty"` // "quick" or "full" for built-ins
	// Spec is the experiment file as run (YAML), so the result says
	// exactly what was measured and can be run again.
	Spec  string `json:"spec"`
	Cells []Cell `json:"cells"`
	// Published are the figures the source reported, to show beside
	// ours.
	Published []Published `json:"published,omitempty"`
	// Compare says along which dimension the report's % tables compare
	// cells, and against which value (from the experiment file's
	// compare:); empty: the report picks the one dimension with two
	// values, if there is one.
	Compare []Comparison `json:"compare,omitempty"`
	// Bottleneck is the statement for the whole sweep.
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// KneeParam is the numeric param along which each line's knee is
	// found (the file's knee:); Knees say where each line degraded past
	// it (judge/bottleneck.Knees).
	KneeParam string `json:"knee_param,omitempty"`
	Knees     []Knee `json:"knees,omitempty"`
	// Marks are values of numeric params the report marks on its curves
	// along them, and the knees' statements place against their knee (the
	// file's marks:).
	Marks []Mark `json:"marks,omitempty"`
	// Partial says why not every cell ran ("interrupted"); "" when the
	// experiment completed (failed cells included).
	Partial string `json:"partial,omitempty"`
}

// Cell states.
const (
	CellOK          = "ok"
	CellFailed      = "failed"      // its cluster or workload failed; Error says why
	CellInterrupted = "interrupted" // Ctrl-C during the cell; its runs so far are kept
	CellPending     = "pending"     // not run yet (a partial result; --resume runs it)
	CellSkipped     = "skipped"     // it cannot run here (no cgroup to write, ...); Error says why
)

// Cell is one point of the matrix.
type Cell struct {
	// ID is unique in the experiment and stable across --resume
	// ("tmpfs/put/clients=1000").
	ID string `json:"id"`
	// Setup and Workload name the matrix entries the cell combines;
	// Params are its coordinates for charts and tables (setup, workload,
	// and every swept value: "clients": "1000").
	Setup    string            `json:"setup"`
	Workload string            `json:"workload"`
	Params   map[string]string `json:"params,omitempty"`
	Status   string            `json:"status"`
	Error    string            `json:"error,omitempty"`
	Start    time.Time         `json:"start"`
	End      time.Time         `json:"end"`
	// Environment is where the cell ran (members, data dir, filesystem,
	// etcd version, emulated links).
	Environment Environment `json:"environment"`
	// Bench is the bench command line's configuration; Runs its runs
	// (iterations, sweeps), each with its server series; Summaries
	// aggregate the iterations.
	Bench     *BenchConfig `json:"bench,omitempty"`
	Runs      []Run        `json:"runs,omitempty"`
	Summaries []Summary    `json:"summaries,omitempty"`
	// Disk and Check are set for cells whose workload is the disk job or a
	// check.
	Disk     *Disk     `json:"disk,omitempty"`
	Check    *Check    `json:"check,omitempty"`
	Verdicts []Verdict `json:"verdicts,omitempty"`
	// Doctor is a doctor cell's diagnosis, and Incident what was injected
	// into its cluster beside what the diagnosis concluded.
	Doctor   *Doctor   `json:"doctor,omitempty"`
	Incident *Incident `json:"incident,omitempty"`
	// Size is a size cell's answer (the size job's search on its own
	// candidate clusters, with the published sizing beside it); the
	// cell has no runs of its own.
	Size *Size `json:"size,omitempty"`
	// Maintenance is a maintenance cell's rounds (the maintenance job).
	Maintenance *Maintenance `json:"maintenance,omitempty"`
	// Faults are the fault timeline's events as they happened.
	Faults []FaultEvent `json:"faults,omitempty"`
	// Bottleneck says what limited the cell, with the figures.
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Overhead is the time the cell spent around its measurement.
	Overhead CellOverhead `json:"overhead"`
	Notes    []string     `json:"notes,omitempty"`
}

// FaultEvent is one step of a fault timeline, as it happened.
type FaultEvent struct {
	// AtSeconds is the planned offset from the start of the measured run;
	// Time when it was applied.
	AtSeconds float64   `json:"at_seconds"`
	Time      time.Time `json:"time"`
	Action    string    `json:"action"` // kill, pause, resume, restart, partition, heal, link, upgrade, downgrade...
	Target    string    `json:"target"` // a member, "leader", "m1->m2", or an upgrade's etcd
	Detail    string    `json:"detail,omitempty"`
	// NewLeaderSeconds is the election time after a kill, pause or
	// partition of the leader (0: none watched or none happened).
	NewLeaderSeconds float64 `json:"new_leader_seconds,omitempty"`
	Error            string  `json:"error,omitempty"`
	// Upgrade is what an upgrade or downgrade step did (Action
	// "upgrade" or "downgrade", Target the etcd asked for), member by
	// member, as far as it went; nil for other actions.
	Upgrade *Upgrade `json:"upgrade,omitempty"`
	// Maintenance is what a maintenance operation did (defragment,
	// compact, snapshot, catch-up, alarm-disarm); nil for other actions.
	Maintenance *MaintenanceOp `json:"maintenance,omitempty"`
}

// CellOverhead is what a cell cost besides its measurement, in seconds.
type CellOverhead struct {
	ClusterStartSeconds float64 `json:"cluster_start_seconds,omitempty"` // to every member healthy with a leader
	TeardownSeconds     float64 `json:"teardown_seconds,omitempty"`
	CleanupSeconds      float64 `json:"cleanup_seconds,omitempty"` // keys deleted on a live cluster
}

// Published is a figure the source article reported, to show beside ours.
type Published struct {
	// Cell matches the cells it compares with: a cell ID, or a set of
	// params that must all match ("setup": "multicloud-0").
	Match  map[string]string `json:"match"`
	Metric string            `json:"metric"` // a MetricName (metrics.go)
	Value  float64           `json:"value"`
	// Note says what differs between the article's setup and ours
	// (hardware, distance, emulated or real).
	Note string `json:"note,omitempty"`
	// Requests, if set, is the number of requests the article's run
	// sent: a total time compares only with a cell that sent as many.
	Requests int64 `json:"requests,omitempty"`
	// Series names the article's line a figure belongs to (one instance
	// family, one scenario set): the % tables pair the article's figures
	// of one series (default: of one Note) to show its change.
	Series string `json:"series,omitempty"`
}

// Comparison is one % table of an experiment's report: every cell whose
// Along value is not Base against the cell alike in everything else
// whose value is Base. Along is "setup", "workload" or a param's name.
type Comparison struct {
	Along string `json:"along"`
	Base  string `json:"base"`
}

// Mark is a value of a numeric param and what it stands for: the
// multi-cloud article's 600 km at 17.6 ms on the round-trip axis.
type Mark struct {
	Param string  `json:"param"`
	At    float64 `json:"at"`
	Label string  `json:"label"`
}

// Knee is where one line of a swept experiment (a workload in a setup)
// degraded past a factor of its first point: throughput halved, or a
// time (latency, time to Ready) doubled.
type Knee struct {
	// Line names the line (result.SweepOf's Line.Name), Param the swept
	// param and Metric what degraded ("throughput", "time to Ready").
	Line   string `json:"line"`
	Param  string `json:"param"`
	Metric string `json:"metric"`
	// Base is the first point's x and figure; Factor the degradation
	// that makes the knee (2: half the throughput, twice the time).
	BaseX     float64 `json:"base_x"`
	BaseValue float64 `json:"base_value"`
	Factor    float64 `json:"factor"`
	// Found says the line passed the knee: Last is the last point still
	// within it (x, figure), Past the first point beyond it. Without a
	// knee, Last is the line's last point.
	Found     bool    `json:"found"`
	LastX     float64 `json:"last_x"`
	LastValue float64 `json:"last_value"`
	PastX     float64 `json:"past_x,omitempty"`
	PastValue float64 `json:"past_value,omitempty"`
	// Statement says it in one sentence.
	Statement string `json:"statement"`
}

// Bottleneck names the resource that limited throughput, with the figures
// that show it.
type Bottleneck struct {
	// Resource is one of: member-cpu, client-cpu, disk, network, quota,
	// fault, none (nothing saturated: the load was below capacity),
	// unknown (not enough was measured); for a whole sweep also mixed (its
	// setups were limited by different resources). Package judge has the
	// rules (docs/experiment-reports.md).
	Resource  string `json:"resource"`
	Statement string `json:"statement"`
	// Figures are the numbers behind it, by name: a MetricName
	// (MetricMemberCPU: 1.9) or a name of the statement's own ("cores": 2).
	Figures map[string]float64 `json:"figures,omitempty"`
}
