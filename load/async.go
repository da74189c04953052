package load

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/result"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// RunWire is Run on the wire engine: a simulated client is a small record,
// not a goroutine; each response starts the client's next request from the
// connection's reader. Spec means what it means for Run.
func RunWire(ctx context.Context, pool *WirePool, w UnaryWorkload, spec Spec) (result.Run, error) {
	if err := spec.Validate(); err != nil {
		return result.Run{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &wireRun{ctx: ctx, pool: pool, spec: spec, start: time.Now(), done: make(chan struct{})}
	r.rec = newRecorder(len(w.Ops()), spec.Rate > 0, r.start)
	r.next.Store(spec.FirstSeq)
	if spec.Duration > 0 {
		r.deadline = r.start.Add(spec.Duration).UnixNano()
	}
	ctl := startControl(ctx, cancel, spec, r.rec, r.start)
	clients := make([]*vclient, spec.Clients)
	r.active.Store(int64(spec.Clients))
	for i := range clients {
		clients[i] = &vclient{r: r, id: i, slot: pool.slots[i%len(pool.slots)]}
	}
	if spec.Rate > 0 {
		r.open = &openQueue{}
		r.open.free = append(r.open.free, clients...)
		go r.schedule()
	} else {
		for _, v := range clients {
			v.next()
		}
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		// Stop issuing; calls in flight end by their deadline at the latest.
		timer := time.NewTimer(spec.RequestTimeout + time.Second)
		select {
		case <-r.done:
		case <-timer.C:
		}
		timer.Stop()
	}
	run := ctl.finish(ctx, w, pool.Len())
	return run, nil
}

// wireRun is the shared state of one RunWire.
type wireRun struct {
	ctx      context.Context
	pool     *WirePool
	spec     Spec
	rec      *recorder
	start    time.Time
	deadline int64 // unix nanos; 0 = none
	next     atomic.Int64
	active   atomic.Int64
	done     chan struct{}
	once     sync.Once
	open     *openQueue
}

// finished is called once per client when it stops.
func (r *wireRun) finished() {
	if r.active.Add(-1) == 0 {
		r.once.Do(func() { close(r.done) })
	}
}

// vclient is one simulated client. Only one of its requests is in flight at
// a time, so its fields need no lock.
type vclient struct {
	r        *wireRun
	id       int
	slot     *slot
	sent     time.Time
	intended time.Time
}

// next starts the client's next request in a closed loop, or takes the next
// due tick in an open loop; it ends the client when the run is over.
func (v *vclient) next() {
	r := v.r
	if r.ctx.Err() != nil {
		r.finished()
		return
	}
	var seq int64
	if r.open != nil {
		t, ok := r.open.take(v)
		if !ok {
			return // parked until a tick is due, or finished
		}
		seq, v.intended = t.seq, t.intended
		v.send(seq, time.Now())
		return
	}
	seq = r.next.Add(1) - 1
	now := time.Now()
	if (r.spec.Total > 0 && seq >= r.spec.FirstSeq+r.spec.Total) || (r.deadline != 0 && now.UnixNano() > r.deadline) {
		r.finished()
		return
	}
	v.intended = now
	v.send(seq, now)
}

func (v *vclient) send(seq int64, now time.Time) {
	v.sent = now
	conn, req, err := v.slot.get()
	if err == nil {
		err = conn.Call(req, seq, v)
	}
	if err != nil {
		v.Done(0, err)
	}
}

// Done records a finished request and starts the next one.
func (v *vclient) Done(op int, err error) {
	r := v.r
	end := time.Now()
	if r.ctx.Err() != nil {
		r.finished() // cut short by the end of the run: not counted
		return
	}
	r.rec.record(v.id, op, v.intended, v.sent, end, err)
	if err != nil && status.Code(err) == codes.Unavailable {
		time.AfterFunc(unavailableBackoff, v.next)
		return
	}
	v.next()
}

// openQueue hands due ticks to free clients; ticks that find every client
// busy wait in a backlog and keep their intended time.
type openQueue struct {
	mu      sync.Mutex
	free    []*vclient
	backlog []tick
	head    int
	over    bool
}

type tick struct {
	seq      int64
	intended time.Time
}

// take gives v the oldest waiting tick, or parks v (or ends it when the
// schedule is over and nothing waits).
func (q *openQueue) take(v *vclient) (tick, bool) {
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
		v.r.finished()
		return tick{}, false
	}
	q.free = append(q.free, v)
	q.mu.Unlock()
	return tick{}, false
}

// schedule issues tick k at start + k/Rate.
func (r *wireRun) schedule() {
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
	for k := int64(0); ; k++ {
		if r.spec.Total > 0 && k >= r.spec.Total {
			return
		}
		off := time.Duration(float64(k) / r.spec.Rate * float64(time.Second))
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
		if n := len(q.free); n > 0 {
			v := q.free[n-1]
			q.free = q.free[:n-1]
			q.mu.Unlock()
			v.intended = t.intended
			v.send(t.seq, time.Now())
			continue
		}
		q.backlog = append(q.backlog, t)
		q.mu.Unlock()
	}
}
