package load

import (
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// Prober is a workload whose cluster availability canaries can measure.
// Probe returns the request a canary sends: made of the workload's own
// keys and kind of request (a write when the workload writes, a read
// otherwise), so that a canary touches nothing the load does not. Its
// message is immutable: many canaries send it at once.
type Prober interface {
	Probe() Request
}

// canary measures when the cluster served, independently of the load's
// clients: every interval it sends the workload's probe request to each
// member the load's connections reach (connection i for member i), without
// waiting for the ones before, each with the run's request timeout. The
// load's clients can all be stuck on requests that etcd only times out
// after its request timeout while the cluster already serves again; the
// canary is not. Safe for concurrent use.
type canary struct {
	r        *run
	req      Request
	interval time.Duration
	members  []string // endpoint of connection i

	inflight sync.WaitGroup
	stop     chan struct{}
	stopped  chan struct{}

	mu         sync.Mutex
	ok, failed []slotSet // by member: slots in which canaries succeeded (end) or failed (sent)
	sent, errs int64
}

// startCanary starts sending canaries to members until finish is called.
func startCanary(r *run, req Request, interval time.Duration, members []string) *canary {
	c := &canary{r: r, req: req, interval: interval, members: members,
		ok: make([]slotSet, len(members)), failed: make([]slotSet, len(members)),
		stop: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c
}

func (c *canary) loop() {
	defer close(c.stopped)
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		for i := range c.members {
			now := time.Now()
			p := &client{r: c.r, id: i, probe: c, req: c.req, intended: now, sent: now, deadline: now.Add(c.r.spec.RequestTimeout)}
			c.inflight.Add(1)
			c.mu.Lock()
			c.sent++
			c.mu.Unlock()
			c.r.tr.sendTo(p, i)
		}
		select {
		case <-t.C:
		case <-c.stop:
			return
		case <-c.r.ctx.Done():
			return
		}
	}
}

// done records one canary's outcome. A canary cut short because the run
// was cancelled has no outcome.
func (c *canary) done(p *client, err error) {
	defer c.inflight.Done()
	if err != nil && c.r.ctx.Err() != nil {
		return
	}
	end := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.errs++
		c.failed[p.id].set(int(p.sent.Sub(c.r.start) / outageSlot))
		return
	}
	c.ok[p.id].set(int(end.Sub(c.r.start) / outageSlot))
}

// finish stops sending, waits for the canaries in flight (each ends by its
// deadline; not when the run was cancelled) and returns what they
// measured and the cluster's unavailability (nil: none). loadOK are the
// slots in which the load's requests succeeded.
func (c *canary) finish(loadOK slotSet) (*result.Canary, *result.Unavailability) {
	close(c.stop)
	<-c.stopped
	if c.r.ctx.Err() == nil {
		c.inflight.Wait()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	info := &result.Canary{IntervalSeconds: c.interval.Seconds(), Members: c.members, Requests: c.sent, Errors: c.errs}
	ok := append(slotSet(nil), loadOK...)
	for _, s := range c.ok {
		ok.or(s)
	}
	return info, clusterOutages(ok, c.failed, c.r.start)
}

// clusterOutages finds when no member served: the gaps between successes
// (of the load or of a canary, ok) in which a canary sent to every member
// failed. A gap runs from the end of the last success before it to the
// first success after it, or to the last failure when the run ended in
// it. A gap in which some member was not asked, or answered late but
// without failing, is not counted: that is a slow cluster, or a gap
// shorter than the canary interval, not an outage.
func clusterOutages(ok slotSet, failed []slotSet, start time.Time) *result.Unavailability {
	if len(failed) == 0 {
		return nil
	}
	n := len(ok)
	for _, f := range failed {
		n = max(n, len(f))
	}
	n *= 64
	u := &result.Unavailability{}
	seen := make([]bool, len(failed))
	gapStart, lastFail := 0, -1
	all := func() bool {
		for _, s := range seen {
			if !s {
				return false
			}
		}
		return true
	}
	for i := range n {
		if ok.has(i) {
			if lastFail >= gapStart && all() {
				u.Add(start.Add(time.Duration(gapStart)*outageSlot), time.Duration(i-gapStart)*outageSlot)
			}
			gapStart, lastFail = i+1, -1
			clear(seen)
			continue
		}
		for m, f := range failed {
			if f.has(i) {
				seen[m], lastFail = true, i
			}
		}
	}
	if lastFail >= gapStart && all() {
		u.Add(start.Add(time.Duration(gapStart)*outageSlot), time.Duration(lastFail+1-gapStart)*outageSlot)
	}
	if len(u.Windows) == 0 {
		return nil
	}
	return u
}
