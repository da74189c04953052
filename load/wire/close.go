// Ending: a call completes once with its error or gRPC status; a broken or
// closed connection ends every outstanding call.

package wire

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// complete calls the callbacks of calls that ended with their err.
func complete(ended []*call) {
	for _, cl := range ended {
		cl.cb.Done(cl.err)
	}
}

// finish completes call id with err, or with its gRPC status, and gives its
// stream to the oldest waiting call.
func (c *Conn) finish(id uint32, err error) {
	c.mu.Lock()
	cl := c.calls[id]
	if cl == nil {
		c.mu.Unlock()
		return
	}
	delete(c.calls, id)
	cl.done, cl.data = true, nil
	var ended []*call
	wrote := false
	if c.qhead < len(c.queue) {
		ended, wrote = c.startQueued(nil)
	}
	c.mu.Unlock()
	if wrote {
		c.kick()
	}
	if err == nil {
		switch cl.grpcCode {
		case 0:
			if cl.recv != nil {
				msg, perr := unframe(cl.resp)
				if perr != nil {
					err = perr
					break
				}
				cl.recv.Receive(msg)
			}
		case -1:
			err = status.Error(codes.Internal, "response without grpc-status")
		default:
			err = status.Error(codes.Code(cl.grpcCode), cl.grpcMsg)
		}
	}
	cl.cb.Done(err)
	complete(ended)
}

// fail breaks the connection: every outstanding call, with a stream or
// waiting for one, ends with err.
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	var ended []*call
	for _, cl := range c.calls {
		ended = append(ended, cl)
	}
	for _, cl := range c.queue[c.qhead:] {
		if !cl.done {
			ended = append(ended, cl)
		}
	}
	for _, cl := range ended {
		cl.done, cl.data, cl.msg, cl.err = true, nil, nil, err
	}
	c.calls = map[uint32]*call{}
	c.fifo, c.pending, c.queue, c.qhead = nil, nil, nil, 0
	c.mu.Unlock()
	c.closeOnce.Do(func() { close(c.closed) })
	c.nc.Close()
	complete(ended)
}

// Err returns why the connection broke, or nil.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the connection; outstanding calls end with ErrClosed.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}
