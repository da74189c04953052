// Package experiment runs experiment files: a matrix of cluster setups
// (local clusters with their storage, emulated network and tuning, or a
// live cluster) and workloads (any bench command line as etcd benchmark
// takes it, the disk job, a check), swept over parameters, each
// combination a cell measured on a fresh cluster, with an optional fault
// timeline and the figures the source article published. One result
// document holds every cell; it is saved after each cell, so a killed run
// loses at most one, and a partial result can be resumed.
//
// docs/experiments.md is the file format's reference.
package experiment

import (
	"reflect"

	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// Spec is an experiment file. Parse reads one; a Spec is not modified
// after that and is safe to share.
type Spec struct {
	// Name names the experiment (lower case, digits and dashes; default
	// the file's base name); Title and Source say what it reproduces.
	Name        string  `yaml:"name"`
	Title       string  `yaml:"title"`
	Source      string  `yaml:"source"`
	Description string  `yaml:"description"`
	Setups      []Setup `yaml:"setups"`
	// Workloads are read through the registry (decode.go): each one's
	// job is the key the registry knows it by.
	Workloads []Workload `yaml:"-"`
	// Sweep are the values substituted into the workloads' {placeholders};
	// a workload's cells are every combination of the values it uses.
	Sweep Sweep `yaml:"sweep"`
	// Warmup and Iterations set bench's --warmup and --iterations for every
	// bench workload ("" and 0: the line's own).
	Warmup     string `yaml:"warmup"`
	Iterations int    `yaml:"iterations"`
	// Faults is the timeline applied during each bench cell's measured
	// run on local setups.
	Faults    []Fault     `yaml:"faults"`
	Published []Published `yaml:"published"`
	// Compare lists the report's % tables: each compares the cells along
	// one dimension (setup, workload, or a param) against its base value.
	// Without it the report compares along the one dimension that has two
	// values, if one has.
	Compare []Comparison `yaml:"compare"`
	// Knee names a numeric param (swept, or given by the setups' params)
	// along which the report finds each line's knee: where its throughput
	// halves or its time to Ready doubles against the first point.
	Knee string `yaml:"knee"`
	// Marks are values of numeric params marked on the report's curves
	// (marks.go): the article's 600 km on the distance axis.
	Marks []Mark `yaml:"marks"`
	// Profiles override the above by name (quick: sized for a small
	// machine); without a profile the file runs as written ("full").
	Profiles map[string]Profile `yaml:"profiles"`

	file    string // where it was read from, for errors
	jobs    job.Registry
	builtin bool
	text    []byte
	tree    *node
}

// Setup is one cluster setup: a local cluster etcdlab starts for each
// cell (members, storage, emulated network, tuning, TLS) or a live
// cluster given by its endpoints.
type Setup struct {
	Name string `yaml:"name"`
	// Members is the size of a local cluster (default 3, or the
	// topology's).
	Members int `yaml:"members"`
	// Storage places the members' data: "disk" (default: the run's data
	// dir, the current directory's disk), "tmpfs" (/dev/shm), "dir:PATH",
	// or "slow:DELAY" (the run's data dir behind a file system that adds
	// DELAY to every fsync: "10ms" or "lognormal:p50=23ms,p99=268ms"; root
	// and FUSE).
	Storage string `yaml:"storage"`
	// Topology is a preset (lab/topology) or a topology file, relative to
	// the experiment file.
	Topology string `yaml:"topology"`
	TLS      bool   `yaml:"tls"`
	Etcd     Tuning `yaml:"etcd"`
	// Reuse lets the setup's cells share one cluster, started for the
	// first and stopped after the last.
	Reuse bool `yaml:"reuse"`
	// PortBase fixes the members' ports (cluster.Options.PortBase).
	PortBase int `yaml:"port_base"`
	// Leader places the leadership on this member (m1..mN) when the
	// cluster starts and before every bench run; each run records whether
	// it held (result.Run.Leader, LeaderMoved).
	Leader string `yaml:"leader"`
	// CPUs is each member's CPU budget in cores (a cgroup CPU quota; root),
	// MemberCPUs the budget of the members it names; both override the
	// topology's.
	CPUs       float64            `yaml:"cpus"`
	MemberCPUs map[string]float64 `yaml:"member_cpus"`
	// Params are coordinates the setup gives its cells, beside the
	// sweep's ({rtt_ms: 20}): numeric ones make a curve along setups, and
	// published figures, compare: and knee: can name them.
	Params map[string]string `yaml:"params"`
	// LoadCPUs is the load generator's CPU budget in cores: the setup's
	// bench cells send their load from a process of their own in a cgroup
	// with that CPU quota (root; loadbudget.go).
	LoadCPUs float64 `yaml:"load_cpus"`
	// TopologySpec is a topology written in the file itself (the fields
	// of a topology file), instead of Topology.
	TopologySpec map[string]any `yaml:"topology_spec"`

	// A live cluster instead: its endpoints and how to reach it. The
	// password, if any, is read from PasswordFile at run time, so that it
	// never appears in the file or the result.
	Endpoints          []string `yaml:"endpoints"`
	CACert             string   `yaml:"cacert"`
	Cert               string   `yaml:"cert"`
	Key                string   `yaml:"key"`
	InsecureSkipVerify bool     `yaml:"insecure_skip_tls_verify"`
	User               string   `yaml:"user"`
	PasswordFile       string   `yaml:"password_file"`
	MetricsURLs        []string `yaml:"metrics_urls"`
	// MemberCores is the cores of each member's machine, so that the
	// bottleneck statement can judge the members' CPU against them.
	MemberCores float64 `yaml:"member_cores"`
}

// Live reports whether the setup is a live cluster.
func (s *Setup) Live() bool { return len(s.Endpoints) > 0 }

// Tuning is etcd's tuning of a local setup, with lab/member.Tuning's names.
type Tuning struct {
	HeartbeatMs             uint   `yaml:"heartbeat_interval_ms"`
	ElectionMs              uint   `yaml:"election_timeout_ms"`
	SnapshotCount           uint64 `yaml:"snapshot_count"`
	QuotaBackendBytes       int64  `yaml:"quota_backend_bytes"`
	AutoCompactionMode      string `yaml:"auto_compaction_mode"`
	AutoCompactionRetention string `yaml:"auto_compaction_retention"`
	Metrics                 string `yaml:"metrics"`
	// CompactionBatchLimit and CompactionSleepInterval pace a compaction
	// (member.Tuning; the sleep interval needs etcd 3.5.16 or newer).
	CompactionBatchLimit    int      `yaml:"compaction_batch_limit"`
	CompactionSleepInterval Duration `yaml:"compaction_sleep_interval"`
	// Version is the etcd the members run: a version built from etcd's
	// modules (3.5.35, 3.7) or a binary's path (relative to the file);
	// Members that of the members it names (a mixed cluster). Empty: the
	// etcd in etcdlab, or the topology's.
	Version string            `yaml:"version"`
	Members map[string]string `yaml:"members"`
}

// zero reports whether t sets nothing.
func (t Tuning) zero() bool {
	members := t.Members
	t.Members = nil
	return len(members) == 0 && reflect.DeepEqual(t, Tuning{})
}

// Workload is what a cell runs: exactly one job of the registry the file
// was parsed with (Parse), under that job's key: a bench command line
// (bench:), the disk job (disk:), a check (check:), an incident (doctor:).
type Workload struct {
	Name string `yaml:"name"`
	// Job is the key of the workload's job, and Fields the job's fields as
	// it decoded them (measure/jobs: a bench line is a string, the disk
	// job a *jobs.DiskJob, ...).
	Job    string `yaml:"-"`
	Fields any    `yaml:"-"`
	// Setups limits the workload to the setups named (default: every
	// setup): an incident runs on the cluster built for it.
	Setups []string `yaml:"setups"`

	faults []Fault // the job's own fault timeline (job.WithFaults), read
	set    int     // how many jobs' keys it sets
}

// Kind is the workload's kind: its job's name ("bench", "disk", "check",
// "doctor").
func (w *Workload) Kind() string { return w.Job }

// Fault is one step of the timeline: at At after the measured run
// started, one action on a member. Targets are member names (m1..mN) or
// "leader" (the leader at that moment; in later steps, the member an
// earlier "leader" step hit) or "follower" (a member that is not the
// leader at that moment).
type Fault struct {
	At Duration `yaml:"at"`
	// Actions is the step's action by the name of a fault of lab/cluster's
	// registry that takes a member (cluster.LookupFault), with its target:
	// "kill: m1" in the file is {"kill": "m1"}. A file gives exactly one
	// (checked after parsing); a fault added to the registry is accepted
	// here with no change (UnmarshalYAML).
	Actions map[string]string `yaml:"-"`
	// For undoes a kill, pause or partition after this long (restart,
	// resume, heal). Whatever is still undone when the cell ends is undone
	// then.
	For Duration `yaml:"for"`
}

// Published is a figure the source article reported, shown beside ours.
type Published struct {
	// Match selects the cells it compares with by their params: setup,
	// workload, and sweep names.
	Match  map[string]string `yaml:"match"`
	Metric string            `yaml:"metric"`
	Value  float64           `yaml:"value"`
	Note   string            `yaml:"note"`
	// Requests is how many requests the article's run sent, when its
	// figure depends on it (a total time): a cell that sent a different
	// number shows "not comparable" instead of a % difference.
	Requests int64 `yaml:"requests"`
	// Series names the article's line the figure belongs to ("Xeon
	// (m5)"): the % tables pair figures of one series to show the
	// article's change (default: figures with the same note).
	Series string `yaml:"series"`
}

// Comparison is one % table: cells along Along ("setup", "workload" or
// a param) against the cell alike in everything else whose value is
// Base.
type Comparison struct {
	Along string `yaml:"along"`
	Base  string `yaml:"base"`
}

// Profile overrides a file's sizes by name.
type Profile struct {
	Description string `yaml:"description"`
	// Setups limits the profile to the setups named (default: every
	// setup): a quick profile runs a few points of a sweep along setups
	// (two storages at three distances) where the full one runs them all.
	Setups []string `yaml:"setups"`
	// Workloads limits the profile to the workloads named (default: every
	// workload): a profile that runs one line of a sweep at its full size
	// (the Kubernetes workload on the HDD) without the others.
	Workloads []string `yaml:"workloads"`
	// Sweep replaces the values of the parameters it names.
	Sweep      Sweep  `yaml:"sweep"`
	Warmup     string `yaml:"warmup"`
	Iterations int    `yaml:"iterations"`
	// Set gives bench flags to every bench workload whose subcommand has
	// them, replacing the line's own: {duration: 8s, total: 1000}; a flag
	// no workload has is an error.
	Set map[string]string `yaml:"set"`
	// DiskRuntime caps every disk job's main job; LevelDuration sets
	// every check's level duration.
	DiskRuntime   Duration `yaml:"disk_runtime"`
	LevelDuration Duration `yaml:"level_duration"`
}

// Duration is a YAML duration ("10s", "1m30s"): job.Duration, which the
// jobs' fields use too.
type Duration = job.Duration

// Sweep is a list of parameters and their values, in the file's order.
type Sweep []Param

// Param is one swept parameter.
type Param struct {
	Name   string
	Values []string
	line   int
}

// Lookup returns the values of the parameter name.
func (s Sweep) Lookup(name string) ([]string, bool) {
	for _, p := range s {
		if p.Name == name {
			return p.Values, true
		}
	}
	return nil, false
}
