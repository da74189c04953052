package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/result"
)

// ShowProgress is an Observer that calls f about every 200 ms with a
// run's label (its name, or "warm-up"), the requests done and those
// expected (0 when the run is bounded by time), from the load's own
// goroutine: a terminal's progress bar.
func ShowProgress(f func(label string, done, total int64)) Observer { return progress(f) }

// progress is ShowProgress's Observer.
type progress func(label string, done, total int64)

func (progress) BeginRun(context.Context, RunInfo)                   {}
func (progress) EndRun(context.Context, RunInfo, *result.Run, error) {}

func (p progress) Progress(r RunInfo, done, total int64) {
	label := r.Name
	if r.Warmup {
		label = "warm-up"
	}
	p(label, done, total)
}
