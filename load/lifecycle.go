package load

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// runControl is what surrounds a run: the early-stop watcher, the progress
// ticker, and turning the recorder into a result.
type runControl struct {
	spec    Spec
	rec     *recorder
	start   time.Time
	cancel  context.CancelFunc
	stopped atomic.Pointer[string]
	done    chan struct{}
}

// startControl watches spec.Stop (cancelling the run with its reason) and
// reports progress until finish is called.
func startControl(ctx context.Context, cancel context.CancelFunc, spec Spec, rec *recorder, start time.Time) *runControl {
	c := &runControl{spec: spec, rec: rec, start: start, cancel: cancel, done: make(chan struct{})}
	if spec.Stop != nil {
		go func() {
			select {
			case <-spec.Stop:
				reason := "stopped"
				if spec.StopReason != nil {
					reason = spec.StopReason()
				}
				c.stopped.Store(&reason)
				cancel()
			case <-ctx.Done():
			case <-c.done:
			}
		}()
	}
	if spec.Progress != nil {
		go func() {
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					spec.Progress(rec.count())
				case <-c.done:
					return
				}
			}
		}()
	}
	return c
}

// finish stops the helpers and builds the result: elapsed time runs from
// the start to the last completion; a run cut short says why.
func (c *runControl) finish(ctx context.Context, ops []string, conns int) result.Run {
	close(c.done)
	last := c.rec.lastEnd()
	if last.Before(c.start) {
		last = time.Now()
	}
	elapsed := last.Sub(c.start)
	run := result.Run{Start: c.start.UTC(), End: last.UTC(), Clients: c.spec.Clients, Conns: conns}
	run.Stats = c.rec.stats(-1, elapsed)
	if len(ops) > 1 {
		for i, name := range ops {
			run.Ops = append(run.Ops, result.Op{Name: name, Stats: c.rec.stats(i, elapsed)})
		}
	}
	switch {
	case c.stopped.Load() != nil:
		run.StoppedEarly = *c.stopped.Load()
	case ctx.Err() != nil:
		run.StoppedEarly = "interrupted"
	}
	return run
}
