package bench

import (
	"context"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// KeepSamples is an Observer that keeps every request of the measured
// runs in s (load.Spec.Samples), for a caller that reads windows known
// only afterwards (the maintenance job's operations). Warm-ups are kept
// too: a window that falls in one is read as it happened. The engines
// that run load sessions honour it (the command-line workloads, bench
// replay); the emulated control plane records through its own recorders
// and keeps none.
func KeepSamples(s *load.Samples) Observer { return samplesObserver{s: s} }

// samplesObserver is KeepSamples' Observer; it does nothing at run
// boundaries: the load records into s.
type samplesObserver struct{ s *load.Samples }

func (samplesObserver) BeginRun(context.Context, RunInfo)                   {}
func (samplesObserver) EndRun(context.Context, RunInfo, *result.Run, error) {}
