package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/result"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Spec says how much load to send and how.
type Spec struct {
	// Clients is the number of concurrent simulated clients (workers).
	Clients int
	// Total stops the run after this many requests; Duration after this
	// long. At least one must be set; the first reached ends the run.
	Total    int64
	Duration time.Duration
	// Rate, if positive, makes the run open loop: request k is due at
	// start + k/Rate whether or not earlier ones have returned, and latency
	// is measured from that intended time. Zero is a closed loop.
	Rate float64
	// RequestTimeout bounds each request; a request that takes longer is
	// an error (DeadlineExceeded), never a hang.
	RequestTimeout time.Duration
	// FirstSeq is the sequence number of the first request (so that a
	// measured phase continues the keys of its warm-up).
	FirstSeq int64
	// Progress, if set, is called about every 200 ms with the number of
	// requests completed so far, from a goroutine of Run.
	Progress func(done int64)
	// Stop, if set, is polled; closing it ends the run early with the
	// reason StopReason returns.
	Stop       <-chan struct{}
	StopReason func() string
}

// Validate checks a spec.
func (s Spec) Validate() error {
	switch {
	case s.Clients < 1:
		return fmt.Errorf("--clients must be at least 1, not %d", s.Clients)
	case s.Total < 0:
		return fmt.Errorf("--total must not be negative")
	case s.Total == 0 && s.Duration <= 0:
		return errors.New("give --total or --duration")
	case s.Rate < 0:
		return fmt.Errorf("--rate must not be negative")
	case s.RequestTimeout <= 0:
		return errors.New("--request-timeout must be positive")
	}
	return nil
}

// unavailableBackoff keeps a worker whose endpoint is down from spinning.
const unavailableBackoff = 10 * time.Millisecond

// Run sends load with w over pool according to spec and returns the
// measurement. Cancelling ctx stops it early (requests cut short by the
// cancellation are not counted); the partial result is still returned.
func Run(ctx context.Context, pool Pool, w Workload, spec Spec) (result.Run, error) {
	if err := spec.Validate(); err != nil {
		return result.Run{}, err
	}
	if len(pool) == 0 {
		return result.Run{}, errors.New("no connections")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	rec := newRecorder(len(w.Ops()), spec.Rate > 0, start)
	ctl := startControl(ctx, cancel, spec, rec, start)
	var wg sync.WaitGroup
	if spec.Rate > 0 {
		runOpen(ctx, pool, w, spec, rec, start, &wg)
	} else {
		runClosed(ctx, pool, w, spec, rec, start, &wg)
	}
	wg.Wait()
	run := ctl.finish(ctx, w, len(pool))
	return run, nil
}

// runClosed starts Clients workers that each send a request, wait for it,
// and send the next, until the total or duration is reached.
func runClosed(ctx context.Context, pool Pool, w Workload, spec Spec, rec *recorder, start time.Time, wg *sync.WaitGroup) {
	var next atomic.Int64
	next.Store(spec.FirstSeq)
	last := spec.FirstSeq + spec.Total
	var deadline time.Time
	if spec.Duration > 0 {
		deadline = start.Add(spec.Duration)
	}
	for i := range spec.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, wk := pool.For(i), w.NewWorker(i)
			for ctx.Err() == nil {
				seq := next.Add(1) - 1
				if spec.Total > 0 && seq >= last {
					return
				}
				t0 := time.Now()
				if !deadline.IsZero() && t0.After(deadline) {
					return
				}
				if !send(ctx, spec, rec, i, conn, wk, seq, t0, t0) {
					return
				}
			}
		}()
	}
}

// runOpen schedules request k at start + k/Rate and hands it to the first
// free worker; when all are busy the schedule keeps its times, so waiting
// counts as latency (no coordinated omission).
func runOpen(ctx context.Context, pool Pool, w Workload, spec Spec, rec *recorder, start time.Time, wg *sync.WaitGroup) {
	type tick struct {
		seq      int64
		intended time.Time
	}
	ticks := make(chan tick)
	for i := range spec.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, wk := pool.For(i), w.NewWorker(i)
			for t := range ticks {
				if !send(ctx, spec, rec, i, conn, wk, t.seq, t.intended, time.Now()) {
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ticks)
		timer := time.NewTimer(0)
		defer timer.Stop()
		for k := int64(0); ; k++ {
			if spec.Total > 0 && k >= spec.Total {
				return
			}
			off := time.Duration(float64(k) / spec.Rate * float64(time.Second))
			if spec.Duration > 0 && off >= spec.Duration {
				return
			}
			due := start.Add(off)
			if wait := time.Until(due); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-ctx.Done():
					return
				}
			}
			select {
			case ticks <- tick{seq: spec.FirstSeq + k, intended: due}:
			case <-ctx.Done():
				return
			}
		}
	}()
}

// send performs one request and records it. It returns false when the run
// has been cancelled.
func send(ctx context.Context, spec Spec, rec *recorder, worker int, conn *Conn, wk Worker, seq int64, intended, sent time.Time) bool {
	rctx, cancel := context.WithTimeout(ctx, spec.RequestTimeout)
	op, err := wk.Do(rctx, conn, seq)
	cancel()
	if ctx.Err() != nil {
		return false // cut short by the end of the run: not a server error
	}
	if err != nil && status.Code(err) == codes.Unauthenticated && conn.auth != nil {
		if rerr := conn.auth.refresh(ctx, conn.cc, 0); rerr == nil {
			rctx, cancel := context.WithTimeout(ctx, spec.RequestTimeout)
			op, err = wk.Do(rctx, conn, seq)
			cancel()
		}
	}
	rec.record(worker, op, intended, sent, time.Now(), err)
	if err != nil && status.Code(err) == codes.Unavailable {
		select {
		case <-time.After(unavailableBackoff):
		case <-ctx.Done():
			return false
		}
	}
	return true
}
