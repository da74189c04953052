package jobs

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// timelineObserver starts a cell's fault timeline when its measured run
// begins (the first one; never at a warm-up): the faults' times count
// from there. A bench.Observer.
type timelineObserver struct{ tl job.Timeline }

func (o timelineObserver) BeginRun(ctx context.Context, r bench.RunInfo) {
	if !r.Warmup {
		o.tl.Start(ctx)
	}
}

func (timelineObserver) EndRun(context.Context, bench.RunInfo, *result.Run, error) {}

// cleanupTimer records how long the deletion of a cell's keys took (on a
// live setup; a cell's own cluster is thrown away instead) in its
// overhead. A bench.Observer; bench calls it on the cell's goroutine.
type cleanupTimer struct{ o *result.CellOverhead }

func (cleanupTimer) BeginRun(context.Context, bench.RunInfo)                   {}
func (cleanupTimer) EndRun(context.Context, bench.RunInfo, *result.Run, error) {}

func (c cleanupTimer) CleanedUp(_ context.Context, _ *bench.BenchInfo, took time.Duration, _ error) {
	c.o.CleanupSeconds = took.Seconds()
}
