package job

import (
	"context"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// Target is what a cell's Work runs against: the cell's cluster (a local
// one the experiment started, or a live one) and what the cell records. The
// experiment keeps the cluster, the file's fault timeline and the
// teardown; the Work only uses them. One cell's goroutine uses it.
type Target struct {
	// Cluster is the cell's local cluster, nil on a live setup and for
	// a work that starts its own (OwnClusters); Options are the options
	// it was started with.
	Cluster *cluster.Cluster
	Options cluster.Options
	// Conn reaches the cluster (a live one's password read from its file).
	Conn etcdclient.Config
	// MetricsURLs are a live setup's members' metrics (a local cluster's
	// are in its state).
	MetricsURLs []string
	// Leader is the member the setup places the leadership on ("": none).
	Leader string
	// LoadCPUs is the load generator's CPU budget in cores (0: none).
	LoadCPUs float64
	// Executable is etcdlab, for work that runs in a child process.
	Executable string
	// DataDir is the experiment's data directory (experiment.Options;
	// "": ./.etcdlab), for work that starts clusters of its own.
	DataDir string
	// Live, if set, shows bench requests as Prometheus metrics.
	Live *load.Live
	// Faults is the file's fault timeline for a FileFaults work on a
	// local setup (nil: none); the work starts it, the cell finishes it.
	Faults Timeline
	// Timeline makes a timeline of a job's own (an incident's faults) on
	// the cell's cluster; the work starts and finishes it.
	Timeline func(Faults) Timeline
	// Cell is the cell's record: work that has more to say than a
	// document (an incident's diagnosis and grade, notes, a skip) writes
	// it here.
	Cell *result.Cell
}

// Timeline is a fault timeline on a cell's cluster (the experiment's
// faults.go). Start may be called from any goroutine, more than once
// (only the first counts); Finish once, on the cell's goroutine.
type Timeline interface {
	// Start begins the timeline now: its steps' times count from here.
	Start(ctx context.Context)
	// Unavailable is why a fault could not be injected on this machine, ""
	// when every fault could.
	Unavailable() string
	// LeaderHit is the member the last "leader" step hit, "" if none did.
	LeaderHit() string
	// Finish stops the timeline, undoes what is still broken and records
	// its events in the cell.
	Finish()
}
