package bench

import (
	"context"
	"io"
	"time"

	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/result"
)

// Observer follows the runs of a bench.Run (Config.Observers), in the
// spirit of k6's outputs: everything that happens around a run rather
// than in it (live metrics, the members' scraper, progress, a fault
// timeline, the agents' barrier) is one Observer. Observers are told of
// runs, never of requests: nothing of theirs is on the load's hot path.
//
// BeginRun is called just before each run (warm-ups too, RunInfo.Warmup
// says which) and EndRun when it ended, with what it measured (EndRun
// also after a failed run, with its error; run may then be partial).
// Both are called on the goroutine that runs the load, one run at a time,
// in Config.Observers' order for BeginRun and the reverse for EndRun;
// they must not block for long (the load waits). An Observer value
// serves one Run at a time.
//
// An Observer may have more capabilities, found by type assertion:
// Gate (wait before the load starts), Slicer (send a slice of the load),
// Progressor (progress of a run),
// BenchObserver (the whole Run: after the cluster is reached, after the
// last run, at the end) and CleanupObserver (the deletion of the prefix).
type Observer interface {
	BeginRun(ctx context.Context, r RunInfo)
	EndRun(ctx context.Context, r RunInfo, run *result.Run, err error)
}

// RunInfo names one run for its observers.
type RunInfo struct {
	// Name is the run's name in the result ("put conns=1 clients=1",
	// " iteration=2" with iterations), or a warm-up's ("... warm-up").
	Name string
	// Warmup is true for a warm-up, whose requests are not measured.
	Warmup bool
	// Index is how many measured runs the result holds before this one.
	Index int
}

// Gate is an Observer that must let a run start: Ready is called after
// every observer's BeginRun, just before the load starts, and an error
// fails the run (as the load's own failure would).
type Gate interface {
	Ready(ctx context.Context, r RunInfo) error
}

// Slicer is an Observer whose process sends a slice of the load (an
// agent of several): Run sends Slice(whole), the configuration as
// validated, and its result describes the whole load. Only the first
// Slicer counts.
type Slicer interface {
	Slice(whole Config) Config
}

// Progressor is an Observer that follows a run's progress: Progress is
// called about every 200 ms (from the load's own goroutine) with the
// requests done and expected (total 0 when the run is bounded by time;
// bench kube: pods ready and expected).
type Progressor interface {
	Progress(r RunInfo, done, total int64)
}

// BenchObserver is an Observer of the whole Run. BeginBench is called
// once the cluster is reached, before the safety checks and the first
// run; an error ends Run with it. EndRuns is called after the last run,
// or when Run stops before the first (the safety rules refused it), with
// the error Run stops with, and returns the error Run goes on with.
// EndBench is called when Run returns, after the clean-up, for every
// observer whose BeginBench succeeded. All on Run's goroutine.
type BenchObserver interface {
	BeginBench(ctx context.Context, b *BenchInfo) error
	EndRuns(ctx context.Context, b *BenchInfo, err error) error
	EndBench()
}

// CleanupObserver is an Observer told of the deletion of the prefix on a
// cluster etcdlab did not start (not called when the keys are kept or
// nothing was written): how long it took and whether it failed. It may
// add notes (BenchInfo.Note) after the clean-up's own.
type CleanupObserver interface {
	CleanedUp(ctx context.Context, b *BenchInfo, took time.Duration, err error)
}

// BenchInfo is a Run as its observers see it. Its methods are for Run's
// goroutine (the observers' BeginBench, EndRuns, CleanedUp and the run
// callbacks).
type BenchInfo struct {
	whole Config // the whole load (an agent's own is a slice of it)
	t     *target
	doc   *result.Document
}

// Config is the run's configuration as validated, for the whole load
// (an agent runs a slice of it), with Conn the connection the run uses.
func (b *BenchInfo) Config() Config { return b.whole }

// Cluster is the cluster the run reached, with a client of it.
func (b *BenchInfo) Cluster() safety.Cluster { return b.t.safety() }

// Document is the result being built.
func (b *BenchInfo) Document() *result.Document { return b.doc }

// Note adds a note to the result.
func (b *BenchInfo) Note(s string) { b.doc.Notes = append(b.doc.Notes, s) }

// Log receives one-line notes for a person (Config.Log).
func (b *BenchInfo) Log() io.Writer { return b.whole.Log }
