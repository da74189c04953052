package load

import (
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// unavailableBackoff keeps a client whose endpoint is down from spinning.
const unavailableBackoff = 10 * time.Millisecond

// client is one simulated client of a run: a record, not a goroutine. It
// has one request in flight at a time, and its fields are touched only by
// whoever holds that request (the scheduler that starts it, the transport
// that sends it, the dispatcher that ends it), so they need no lock.
type client struct {
	r        *run
	id       int
	gen      Client // the workload's state: builds the requests
	req      Request
	intended time.Time // when the request was due (= sent in a closed loop)
	sent     time.Time
	deadline time.Time
	retried  bool // the request was sent again after an auth refresh
	// probe is set on a canary's request, which the dispatcher hands to
	// its canary instead of recording it; its id is its member's
	// connection.
	probe *canary
}

// start sends request seq, due at intended. The scheduler calls it.
func (c *client) start(seq int64, intended, now time.Time) {
	c.intended, c.sent, c.retried = intended, now, false
	c.req = c.gen.Next(seq)
	c.deadline = now.Add(c.r.spec.RequestTimeout)
	c.r.tr.send(c)
}

// Done is the dispatcher: the transport calls it when c's request has
// ended. It records the request and starts the client's next one, after a
// back-off when the endpoint was unavailable. A request refused for its
// auth token (invalid, or older than the auth store, as clientv3 retries)
// is sent once more after a new token is fetched; its latency includes the
// refresh. A request that ends after the run did is
// not counted.
func (c *client) Done(err error) {
	if c.probe != nil {
		c.probe.done(c, err)
		return
	}
	r := c.r
	if r.ctx.Err() != nil {
		r.dropped.Add(1)
		r.finished()
		return
	}
	if err != nil && !c.retried && r.auth && staleToken(err) {
		c.retried = true
		go c.refreshAndResend(err)
		return
	}
	r.rec.record(c.id, c.req.Op, c.intended, c.sent, time.Now(), err)
	if err != nil && status.Code(err) == codes.Unavailable {
		time.AfterFunc(unavailableBackoff, c.next)
		return
	}
	c.next()
}

// refreshAndResend fetches a new auth token and sends the request again;
// without one, the request ends with err.
func (c *client) refreshAndResend(err error) {
	r := c.r
	if r.tr.refreshAuth(r.ctx) != nil {
		c.Done(err)
		return
	}
	c.deadline = time.Now().Add(r.spec.RequestTimeout)
	r.tr.send(c)
}

// next starts the client's next request: in a closed loop the next
// sequence number at once, in an open loop the oldest due tick (or it waits
// for one). It ends the client when the run is over.
func (c *client) next() {
	r := c.r
	if r.ctx.Err() != nil {
		r.finished()
		return
	}
	if r.open != nil {
		if t, ok := r.open.take(c); ok {
			c.start(t.seq, t.intended, time.Now())
		}
		return
	}
	seq := r.next.Add(1) - 1
	now := time.Now()
	if (r.spec.Total > 0 && seq >= r.end) || (r.deadline != 0 && now.UnixNano() > r.deadline) {
		r.overshot.Add(1)
		r.finished()
		return
	}
	c.start(seq, now, now)
}

// staleToken reports whether err refuses a request for its auth token, as
// clientv3's retry interceptor decides to fetch a new one.
func staleToken(err error) bool {
	switch rpctypes.Error(err) {
	case rpctypes.ErrInvalidAuthToken, rpctypes.ErrAuthOldRevision, rpctypes.ErrUserEmpty:
		return true
	}
	return status.Code(err) == codes.Unauthenticated
}
