package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// run is the scheduler's state for one Session.Run: it hands sequence
// numbers to clients, closed loop (the next number as soon as a client is
// free) or open loop (request k due at start + k/Rate, a backlog when every
// client is busy). Safe for concurrent use.
type run struct {
	ctx      context.Context
	tr       transport
	auth     bool // tr sends an auth token, which the dispatcher refreshes
	spec     Spec
	rec      *recorder
	start    time.Time
	end      int64 // FirstSeq + Total: the first sequence number not sent
	deadline int64 // unix nanos after which a closed loop sends no more; 0: none
	next     atomic.Int64
	active   atomic.Int64 // clients not finished
	// overshot counts clients that took a sequence number past the end
	// and stopped instead of sending it; dropped, requests that ended
	// after the run did (not recorded). Each happens once per client at
	// most, so that requests in flight are told without counting sends.
	overshot, dropped atomic.Int64
	done              chan struct{}
	once              sync.Once
	open              *openQueue // nil in a closed loop
}

// runLoad measures one run of spec on tr with one client per gens entry
// (spec is valid), and with canaries sending probe to members (connection
// i reaching members[i]) when spec asks for them and probe is set.
// Cancelling ctx stops it: requests cut short are not counted and the
// partial result is returned.
func runLoad(ctx context.Context, tr transport, ops []string, gens []Client, spec Spec, probe *Request, members []string) result.Run {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cpu := StartCPU()
	r := &run{ctx: ctx, tr: tr, auth: tr.authenticates(), spec: spec, start: time.Now(), end: spec.FirstSeq + spec.Total, done: make(chan struct{})}
	r.rec = newRecorder(len(ops), spec.open(), r.start)
	r.rec.samples, r.rec.names = spec.Samples, ops
	r.next.Store(spec.FirstSeq)
	if spec.Duration > 0 {
		r.deadline = r.start.Add(spec.Duration).UnixNano()
	}
	ctl := startControl(ctx, cancel, spec, r.rec, r.start)
	var cn *canary
	if spec.Canary > 0 && probe != nil && len(members) > 0 {
		cn = startCanary(r, *probe, spec.Canary, members)
	}
	clients := make([]client, len(gens))
	r.active.Store(int64(len(clients)))
	for i := range clients {
		clients[i] = client{r: r, id: i, gen: gens[i]}
	}
	if spec.open() {
		r.open = &openQueue{free: make([]*client, 0, len(clients))}
		for i := range clients {
			r.open.free = append(r.open.free, &clients[i])
		}
	}
	stopLive := func() {}
	if spec.Live != nil { // now that r.open, which inFlight reads, is set
		stopLive = spec.Live.track(&liveSource{rec: r.rec, ops: ops, rate: spec.targetRate(), inFlight: r.inFlight})
	}
	if r.open != nil {
		go r.schedule()
	} else {
		for i := range clients {
			clients[i].next()
		}
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		// Stop issuing; requests in flight end by their deadline at the
		// latest.
		timer := time.NewTimer(spec.RequestTimeout + time.Second)
		select {
		case <-r.done:
		case <-timer.C:
		}
		timer.Stop()
	}
	run := ctl.finish(ctx, ops, tr.conns())
	stopLive()
	run.LoadCPUCores, run.MachineCPUCores = cpu.Cores()
	run.LoadCoresLimit = cpu.Procs()
	if cn != nil {
		run.Canary, run.ClusterUnavailability = cn.finish(r.rec.okSlots())
	}
	return run
}

// finished is called once per client when it stops.
func (r *run) finished() {
	if r.active.Add(-1) == 0 {
		r.once.Do(func() { close(r.done) })
	}
}

// inFlight returns the requests sent and not answered yet, from what the
// scheduler counts anyway (closed loop: the sequence numbers taken; open
// loop: the ticks issued and not waiting) and the recorder's completions.
// It reads the sends first: requests answered while it reads the
// completions make it lower than the truth, never higher (it is at most
// the clients).
func (r *run) inFlight() int64 {
	var sent int64
	if q := r.open; q != nil {
		q.mu.Lock()
		sent = q.issued - int64(len(q.backlog)-q.head)
		q.mu.Unlock()
	} else {
		sent = r.next.Load() - r.spec.FirstSeq - r.overshot.Load()
	}
	done := r.rec.count() + r.dropped.Load()
	return max(0, sent-done)
}

// openQueue hands due ticks to free clients; ticks that find every client
// busy wait in a backlog and keep their intended time. Safe for concurrent
// use.
type openQueue struct {
	mu      sync.Mutex
	free    []*client
	backlog []tick
	head    int
	over    bool
	issued  int64 // ticks the schedule issued
}

// tick is one due request of an open loop.
type tick struct {
	seq      int64
	intended time.Time
}

// take gives c the oldest waiting tick, or parks c until one is due (or
// ends it when the schedule is over and nothing waits).
func (q *openQueue) take(c *client) (tick, bool) {
	q.mu.Lock()
	if q.head < len(q.backlog) {
		t := q.backlog[q.head]
		q.head++
		if q.head == len(q.backlog) {
			q.backlog, q.head = q.backlog[:0], 0
		}
		q.mu.Unlock()
		return t, true
	}
	if q.over {
		q.mu.Unlock()
		c.r.finished()
		return tick{}, false
	}
	q.free = append(q.free, c)
	q.mu.Unlock()
	return tick{}, false
}

// schedule issues tick k at start + k/Rate (or Curve.Offset(k)) until
// Total, Duration or the curve's end.
func (r *run) schedule() {
	q := r.open
	defer func() {
		q.mu.Lock()
		q.over = true
		idle := q.free
		q.free = nil
		q.mu.Unlock()
		for range idle {
			r.finished()
		}
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var cur curveCursor
	for k := int64(0); ; k++ {
		if r.spec.Total > 0 && k >= r.spec.Total {
			return
		}
		var off time.Duration
		if len(r.spec.Curve) > 0 {
			var ok bool
			if off, ok = cur.offset(r.spec.Curve, k); !ok {
				return
			}
		} else {
			off = time.Duration(float64(k) / r.spec.Rate * float64(time.Second))
		}
		if r.spec.Duration > 0 && off >= r.spec.Duration {
			return
		}
		due := r.start.Add(off)
		if wait := time.Until(due); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-r.ctx.Done():
				return
			}
		}
		if r.ctx.Err() != nil {
			return
		}
		t := tick{seq: r.spec.FirstSeq + k, intended: due}
		q.mu.Lock()
		q.issued++
		if n := len(q.free); n > 0 {
			c := q.free[n-1]
			q.free = q.free[:n-1]
			q.mu.Unlock()
			c.start(t.seq, t.intended, time.Now())
			continue
		}
		q.backlog = append(q.backlog, t)
		q.mu.Unlock()
	}
}
