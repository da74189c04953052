// Deadlines: one sweeper goroutine ends calls whose deadline passed, in
// send order.

package wire

import (
	"context"
	"time"

	"golang.org/x/net/http2"
)

// sweeper ends calls whose deadline passed, oldest first, whether they
// have a stream (which is reset) or still wait for one. It sleeps until the
// oldest call's deadline (calls are sent in deadline order), at least
// sweepInterval between sweeps, and while no call is outstanding until Call
// wakes it: with a deadline of seconds it wakes about once per deadline, not
// every few milliseconds.
func (c *Conn) sweeper() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	var expired []*call
	for {
		select {
		case <-t.C:
		case <-c.armed:
		case <-c.closed:
			t.Stop()
			return
		}
		now := time.Now().UnixNano()
		expired = expired[:0]
		c.mu.Lock()
		i, freed := 0, false
		for ; i < len(c.fifo); i++ {
			cl := c.fifo[i]
			if cl.done {
				continue
			}
			if cl.deadline > now {
				break
			}
			cl.done, cl.data, cl.msg, cl.err = true, nil, nil, context.DeadlineExceeded
			if cl.id != 0 {
				delete(c.calls, cl.id)
				c.writeFrame(http2.FrameRSTStream, 0, cl.id, u32(uint32(http2.ErrCodeCancel)))
				freed = true
			}
			expired = append(expired, cl)
		}
		c.fifo = compact(c.fifo, i)
		if freed {
			expired, _ = c.startQueued(expired)
		}
		next := int64(0) // when to sweep again; 0: when Call wakes us
		if len(c.fifo) > 0 {
			next = max(c.fifo[0].deadline, now+int64(sweepInterval))
		}
		c.idle = next == 0
		c.mu.Unlock()
		if next != 0 {
			t.Reset(time.Duration(next - now))
		}
		if len(expired) > 0 {
			c.kick()
		}
		complete(expired)
	}
}

// compact drops the first i entries (and finished ones at the front),
// reusing the backing array when it has become mostly empty.
func compact(q []*call, i int) []*call {
	for i < len(q) && q[i].done {
		i++
	}
	clear(q[:i]) // the calls ended: let them go
	q = q[i:]
	if cap(q) > 1024 && len(q) < cap(q)/4 {
		q = append(make([]*call, 0, 2*len(q)+16), q...)
	}
	return q
}
