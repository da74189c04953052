// Package job is the experiment runner's seam for what a cell runs: a
// workload's key in an experiment file (bench:, disk:, check:, doctor:)
// names a Job of a Registry, which decodes and checks its own fields, plans
// them into a cell's Work, and runs that Work against the cell's Target.
// measure/experiment imports this package only; the jobs themselves
// (measure/jobs) import the commands they run, and the caller (the CLI)
// hands their table to experiment.Parse.
//
// Every type here is plain data or an interface; a Job and a Work are
// immutable once made and may be shared between goroutines, a Target is
// used by one cell's goroutine.
package job

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// Job is one kind of workload an experiment file can name.
type Job interface {
	// Name is the workload's key that selects this job ("bench").
	Name() string
	// Fields is the zero value of the job's fields: the file's value under
	// Name is decoded into a value of its type (a pointer to a struct, or a
	// string), strictly, as every part of the file is. A zero value
	// decoded (an empty string, a null) means the key is not given.
	Fields() any
	// Placeholders are the sweep's parameters the fields use ({clients}):
	// the workload's cells are every combination of their values.
	Placeholders(fields any) []string
	// Check validates the fields against the file, as far as can be known
	// before a profile is chosen. Its errors come from c.Errorf.
	Check(c Checker, fields any) error
	// Plan makes one cell's Work from the fields under a profile.
	Plan(p Cell, fields any) (Work, error)
}

// Work is what one planned cell runs.
type Work interface {
	// Command is the work as a command line, for plans ("bench put ...").
	Command() string
	// Estimate models how long the work takes, the cluster's start and
	// teardown left out.
	Estimate(Env) time.Duration
	// Run runs the work against the cell's target. It returns the result
	// document whose figures become the cell's (nil when it wrote them into
	// t.Cell itself); an error fails the cell.
	Run(ctx context.Context, t *Target) (*result.Document, error)
}

// FileFaults is a Work during whose measured run the experiment file's
// fault timeline runs (Target.Faults); other work runs without it.
type FileFaults interface {
	RunsFileFaults() bool
}

// OwnClusters is a Work that starts clusters of its own (a size search's
// probes, each on a fresh cluster): on a local setup the cell starts no
// cluster for it (Target.Cluster is nil), and its estimate has no
// cluster's start and teardown.
type OwnClusters interface {
	StartsOwnClusters() bool
}

// WritePath is a Work that sends its writes over a known set of
// connections, so that the cell can record the emulated write path's round
// trips: conns connections spread over the members in order, or all to the
// leader; ok is false when that is not known (several connection counts).
type WritePath interface {
	WritePath() (conns int, toLeader, ok bool)
}

// Env is what a Work's estimate depends on besides its fields: a request's
// modelled latency on the cell's cluster (loopback, the emulated network,
// twice the median fsync delay), the median and mean fsync delay, and the
// setup's members, budgets and leader placement. The fixed costs a Work
// adds are rows of Costs().
type Env struct {
	Latency, Fsync time.Duration
	// FsyncMean is the emulated fsync delay's mean (0: none): what a run
	// of many fsyncs pays per fsync.
	FsyncMean time.Duration
	// SlowDisk says the first member's disk is emulated (the disk job runs
	// in a child etcdlab).
	SlowDisk bool
	// Members is the cell's cluster's size (0: a live cluster).
	Members int
	// MemberCPUs is the smallest member's CPU budget in cores (0: none).
	MemberCPUs float64
	// LoadCPUs is the load generator's budget in cores (0: none): a bench
	// line then runs in a child agent.
	LoadCPUs float64
	// Leader says the setup places the leader before every run.
	Leader bool
}

// Cell is what Job.Plan gets besides the fields: the cell's identity and
// the profile's overrides.
type Cell struct {
	// ID and Params are the cell's ID and coordinates (setup, workload and
	// its swept values).
	ID      string
	Params  map[string]string
	Profile string
	// Overrides are bench flags every bench line gets under the profile,
	// in order (warmup, iterations, the profile's set); a job notes in
	// Applied each flag it applied, so that a flag no workload has is an
	// error.
	Overrides [][2]string
	Applied   map[string]bool
	// DiskRuntime caps a disk job's main job, LevelDuration sets a check's
	// level duration (the profile's; 0: the file's).
	DiskRuntime, LevelDuration time.Duration
	// Errorf is an invalid-input error at path below the workload's key.
	Errorf func(path []any, format string, args ...any) error
	// Steps describes an incident's own fault timeline, one "action target"
	// per step.
	Steps func(Faults) []string
}
