// Sending: calls get a stream (or wait in send order for one), their
// frames are batched under the connection's lock and one writer goroutine
// flushes them, honouring the server's flow-control windows.

package wire

import (
	"encoding/binary"
	"slices"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// writeFrame appends a frame to the outgoing buffer. Call with mu held (or
// before the writer starts).
func (c *Conn) writeFrame(t http2.FrameType, flags http2.Flags, stream uint32, payload []byte) {
	var h [9]byte
	n := len(payload)
	h[0], h[1], h[2] = byte(n>>16), byte(n>>8), byte(n)
	h[3], h[4] = byte(t), byte(flags)
	binary.BigEndian.PutUint32(h[5:], stream)
	c.out.Write(h[:])
	c.out.Write(payload)
}

// kick wakes the writer.
func (c *Conn) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Call starts a unary call of Methods[method] with msg, which must end by
// deadline. On success the outcome reaches cb.Done later; msg must stay
// unchanged until then. An error means the call was not started (the
// connection is broken, closed or cannot open streams any more).
//
// Deadlines are swept in send order, so calls should be sent in deadline
// order (one timeout for all, as a load run does): a call whose deadline is
// earlier than that of a call sent before it ends at that call's deadline
// at the latest.
func (c *Conn) Call(method int, msg Message, deadline time.Time, cb Callback) error {
	c.mu.Lock()
	if err := c.refusal(); err != nil {
		c.mu.Unlock()
		return err
	}
	cl := &call{cb: cb, deadline: deadline.UnixNano(), grpcCode: -1}
	cl.recv, _ = cb.(Receiver)
	c.receives = c.receives || cl.recv != nil
	if c.qhead < len(c.queue) || uint32(len(c.calls)) >= c.maxStreams {
		cl.method, cl.msg = method, msg
		c.queue = append(c.queue, cl)
		c.enlist(cl)
		c.mu.Unlock()
		return nil
	}
	if err := c.start(cl, method, msg); err != nil {
		c.mu.Unlock()
		return err
	}
	c.enlist(cl)
	c.mu.Unlock()
	c.kick()
	return nil
}

// enlist adds cl to the deadline FIFO, first dropping the calls that ended
// at its front, and wakes an idle sweeper. Call with mu held.
func (c *Conn) enlist(cl *call) {
	for len(c.fifo) > 0 && c.fifo[0].done {
		c.fifo[0] = nil
		c.fifo = c.fifo[1:]
	}
	c.fifo = append(c.fifo, cl)
	if c.idle {
		c.idle = false
		select {
		case c.armed <- struct{}{}:
		default:
		}
	}
}

// refusal says why no new stream can be opened, or returns nil. Call with
// mu held.
func (c *Conn) refusal() error {
	switch {
	case c.err != nil:
		return c.err
	case c.goAwayAfter != 0:
		return status.Error(codes.Unavailable, "the server is going away")
	case c.nextID >= 1<<31-1:
		return status.Error(codes.Unavailable, "connection exhausted its stream IDs")
	}
	return nil
}

// start opens cl's stream: the message is marshalled (framed with the gRPC
// length prefix) and its HEADERS and DATA are queued for the writer. Call
// with mu held.
func (c *Conn) start(cl *call, method int, msg Message) error {
	n := msg.Size()
	buf := slices.Grow(c.scratch[:0], 5+n)[:5+n]
	buf[0] = 0
	binary.BigEndian.PutUint32(buf[1:5], uint32(n))
	if _, err := msg.MarshalToSizedBuffer(buf[5:]); err != nil {
		return status.Error(codes.Internal, "marshal the request: "+err.Error())
	}
	c.scratch = buf
	id := c.nextID
	c.nextID += 2
	cl.id, cl.sendWin = id, c.initWin
	c.calls[id] = cl
	c.writeFrame(http2.FrameHeaders, http2.FlagHeadersEndHeaders, id, c.headers[method])
	if len(c.pending) == 0 && int64(len(buf)) <= c.sendWin && int64(len(buf)) <= cl.sendWin && len(buf) <= c.maxFrame {
		c.sendWin -= int64(len(buf))
		c.writeFrame(http2.FrameData, http2.FlagDataEndStream, id, buf)
	} else {
		cl.data = append([]byte(nil), buf...)
		c.pending = append(c.pending, cl)
		c.pump()
	}
	return nil
}

// startQueued gives the streams the server allows to waiting calls, oldest
// first. Calls that cannot start (the connection no longer opens streams)
// end: they are appended to ended for the caller to complete after
// unlocking. It reports whether it wrote frames. Call with mu held.
func (c *Conn) startQueued(ended []*call) ([]*call, bool) {
	wrote := false
	for c.qhead < len(c.queue) && uint32(len(c.calls)) < c.maxStreams {
		cl := c.queue[c.qhead]
		c.queue[c.qhead] = nil
		c.qhead++
		if cl.done {
			continue
		}
		method, msg := cl.method, cl.msg
		cl.msg = nil
		err := c.refusal()
		if err == nil {
			err = c.start(cl, method, msg)
		}
		if err != nil {
			cl.done, cl.err = true, err
			ended = append(ended, cl)
			continue
		}
		wrote = true
	}
	switch {
	case c.qhead == len(c.queue):
		c.queue, c.qhead = c.queue[:0], 0
	case c.qhead > 1024 && c.qhead > len(c.queue)/2:
		n := copy(c.queue, c.queue[c.qhead:])
		clear(c.queue[n:])
		c.queue, c.qhead = c.queue[:n], 0
	}
	return ended, wrote
}

// pump sends pending DATA as far as flow control allows, in order. Call with
// mu held.
func (c *Conn) pump() {
	for len(c.pending) > 0 {
		cl := c.pending[0]
		if cl.done {
			c.pending = c.pending[1:]
			continue
		}
		for len(cl.data) > 0 {
			n := int64(min(len(cl.data), c.maxFrame))
			n = min(n, c.sendWin, cl.sendWin)
			if n <= 0 {
				return
			}
			flags := http2.Flags(0)
			if int(n) == len(cl.data) {
				flags = http2.FlagDataEndStream
			}
			c.writeFrame(http2.FrameData, flags, cl.id, cl.data[:n])
			c.sendWin -= n
			cl.sendWin -= n
			cl.data = cl.data[n:]
		}
		c.pending = c.pending[1:]
	}
}

// writer sends batched frames: whatever accumulated while the previous
// write was in progress goes out in one write.
func (c *Conn) writer() {
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		}
		c.mu.Lock()
		if c.out.Len() == 0 {
			c.mu.Unlock()
			continue
		}
		buf := c.out
		c.out, c.spare = c.spare, nil
		c.mu.Unlock()
		_, err := c.nc.Write(buf.Bytes())
		buf.Reset()
		c.mu.Lock()
		c.spare = buf
		c.mu.Unlock()
		if err != nil {
			c.fail(status.Error(codes.Unavailable, "write: "+err.Error()))
			return
		}
	}
}
