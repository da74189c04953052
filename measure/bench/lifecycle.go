package bench

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// lifecycle is a Run's observers: Config.Observers, then bench's own (the
// members' scraper), in the order BeginRun calls them. Used on Run's
// goroutine only.
type lifecycle struct {
	all []Observer
	// live is the Live a ShowLive observer shows the runs in: the load
	// registers its recorders there (load.Spec.Live), once per run.
	live *load.Live
	// samples is the Samples a KeepSamples observer keeps requests in
	// (load.Spec.Samples).
	samples *load.Samples
	begun   []BenchObserver // BeginBench succeeded: EndBench owed
}

func newLifecycle(obs []Observer) *lifecycle {
	l := &lifecycle{all: obs}
	for _, o := range obs {
		if lo, ok := o.(*liveObserver); ok && l.live == nil {
			l.live = lo.l
		}
		if so, ok := o.(samplesObserver); ok && l.samples == nil {
			l.samples = so.s
		}
	}
	return l
}

// run runs one run (a warm-up or a measured run) between its observers'
// BeginRun and EndRun, passing every Gate just before the load starts.
func (l *lifecycle) run(ctx context.Context, r RunInfo, send func() (result.Run, error)) (result.Run, error) {
	for _, o := range l.all {
		o.BeginRun(ctx, r)
	}
	var run result.Run
	err := l.ready(ctx, r)
	if err == nil {
		run, err = send()
	}
	for i := len(l.all) - 1; i >= 0; i-- {
		l.all[i].EndRun(ctx, r, &run, err)
	}
	return run, err
}

func (l *lifecycle) ready(ctx context.Context, r RunInfo) error {
	for _, o := range l.all {
		if g, ok := o.(Gate); ok {
			if err := g.Ready(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// slicer is the first observer that is a Slicer, or nil.
func (l *lifecycle) slicer() Slicer {
	for _, o := range l.all {
		if s, ok := o.(Slicer); ok {
			return s
		}
	}
	return nil
}

// progress returns what reports run r's progress to the Progressors, or
// nil when there is none.
func (l *lifecycle) progress(r RunInfo) func(done, total int64) {
	var ps []Progressor
	for _, o := range l.all {
		if p, ok := o.(Progressor); ok {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return func(done, total int64) {
		for _, p := range ps {
			p.Progress(r, done, total)
		}
	}
}

// loadProgress is progress for a load.Spec whose runs expect total
// requests.
func (l *lifecycle) loadProgress(r RunInfo, total int64) func(int64) {
	p := l.progress(r)
	if p == nil {
		return nil
	}
	return func(done int64) { p(done, total) }
}

// beginBench calls every BenchObserver's BeginBench; on an error, those
// that began end (EndBench) and the error is returned.
func (l *lifecycle) beginBench(ctx context.Context, b *BenchInfo) error {
	for _, o := range l.all {
		bo, ok := o.(BenchObserver)
		if !ok {
			continue
		}
		if err := bo.BeginBench(ctx, b); err != nil {
			l.endBench()
			return err
		}
		l.begun = append(l.begun, bo)
	}
	return nil
}

// endRuns passes err through every begun BenchObserver's EndRuns.
func (l *lifecycle) endRuns(ctx context.Context, b *BenchInfo, err error) error {
	for _, bo := range l.begun {
		err = bo.EndRuns(ctx, b, err)
	}
	return err
}

// endBench ends the begun BenchObservers, last begun first.
func (l *lifecycle) endBench() {
	for i := len(l.begun) - 1; i >= 0; i-- {
		l.begun[i].EndBench()
	}
	l.begun = nil
}

// cleanedUp tells the CleanupObservers how the clean-up went.
func (l *lifecycle) cleanedUp(ctx context.Context, b *BenchInfo, took time.Duration, err error) {
	for _, o := range l.all {
		if c, ok := o.(CleanupObserver); ok {
			c.CleanedUp(ctx, b, took, err)
		}
	}
}
