package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// wireTransport sends requests with package wire: connection i to endpoint
// i mod len, client i on connection i mod len. A connection that breaks (or
// that the server sends away) is retired and dialled again in the
// background until it connects or the transport closes. Meanwhile its
// clients' requests go to the next live connection (failover), or, when the
// transport is pinned as etcd benchmark v3.6, fail with Unavailable.
type wireTransport struct {
	slots []*slot
	pin   bool
	rr    atomic.Uint32 // spreads failed-over requests across live slots
	// ctx ends with close: it stops the redial loops and their dials.
	ctx  context.Context
	stop context.CancelFunc
}

// slot is one connection and its redialling.
type slot struct {
	t    *wireTransport
	conn atomic.Pointer[wire.Conn] // nil while (re)connecting
	opts wire.Options

	mu      sync.Mutex
	dialing bool
	lastErr error
	closed  bool
}

// redialBackoff spaces attempts to reconnect one slot.
const redialBackoff = 200 * time.Millisecond

// dialWire opens n wire connections. It fails if none can be made.
func dialWire(ctx context.Context, cfg etcdclient.Config, endpoints []string, n int, pin bool) (*wireTransport, error) {
	tlsCfg, err := cfg.TLS()
	if err != nil {
		return nil, err
	}
	t := &wireTransport{pin: pin}
	t.ctx, t.stop = context.WithCancel(context.Background())
	names := methodNames()
	var firstErr error
	ok := 0
	for i := range n {
		addr, secure := endpointAddr(endpoints[i%len(endpoints)], tlsCfg != nil)
		o := wire.Options{Address: addr, Methods: names, DialTimeout: cfg.DialTimeout}
		if secure {
			o.TLS = tlsCfg
		}
		s := &slot{t: t, opts: o}
		c, err := wire.Dial(ctx, o)
		if err != nil {
			s.lastErr = err
			if firstErr == nil {
				firstErr = err
			}
		} else {
			s.conn.Store(c)
			ok++
		}
		t.slots = append(t.slots, s)
	}
	if ok == 0 {
		t.close()
		return nil, fmt.Errorf("connect: %w", firstErr)
	}
	for _, s := range t.slots {
		if s.conn.Load() == nil {
			s.retire(nil)
		}
	}
	return t, nil
}

// send calls c's request on its client's connection or, when that one is
// down and the transport fails over, on a live one. A call that could not
// be started on a connection (it broke, or the server is going away)
// reached no server, so it is tried on the next live connection.
func (t *wireTransport) send(c *client) {
	home := c.id % len(t.slots)
	s := t.slots[home]
	for range len(t.slots) {
		conn := s.conn.Load()
		if conn == nil {
			if t.pin {
				break
			}
			next := t.live(home)
			if next == nil {
				break
			}
			s, conn = next, next.conn.Load()
			if conn == nil {
				continue
			}
		}
		err := conn.Call(int(c.req.Method), c.req.Msg, c.deadline, c)
		if err == nil {
			return
		}
		if conn.Err() == nil && status.Code(err) != codes.Unavailable {
			c.Done(err) // the request itself could not be sent (marshalling)
			return
		}
		s.retire(conn)
		if t.pin {
			c.Done(s.unavailable())
			return
		}
	}
	c.Done(s.unavailable())
}

// live returns a slot other than home with a connection, starting the
// search at a rotating position so that a dead slot's requests spread over
// the live ones; nil when none is connected.
func (t *wireTransport) live(home int) *slot {
	n := len(t.slots)
	start := int(t.rr.Add(1) % uint32(n))
	for k := range n {
		i := (start + k) % n
		if i != home && t.slots[i].conn.Load() != nil {
			return t.slots[i]
		}
	}
	return nil
}

// sendTo starts c's request on connection i only: a canary's, which asks
// that connection's member and no other.
func (t *wireTransport) sendTo(c *client, i int) {
	s := t.slots[i]
	conn := s.conn.Load()
	if conn == nil {
		c.Done(s.unavailable())
		return
	}
	if err := conn.Call(int(c.req.Method), c.req.Msg, c.deadline, c); err != nil {
		if conn.Err() != nil || status.Code(err) == codes.Unavailable {
			s.retire(conn)
		}
		c.Done(err)
	}
}

// retire takes a broken connection out of use (nil: none to retire) and
// starts redialling unless that is under way or the transport is closed.
func (s *slot) retire(broken *wire.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if broken != nil && s.conn.CompareAndSwap(broken, nil) {
		s.lastErr = broken.Err()
		if s.lastErr == nil {
			s.lastErr = errors.New("the server sent the connection away")
		}
		_ = broken.Close()
	}
	if !s.dialing && !s.closed && s.conn.Load() == nil {
		s.dialing = true
		go s.redial()
	}
}

// redial dials the slot's endpoint every redialBackoff until it connects
// or the transport closes.
func (s *slot) redial() {
	for {
		select {
		case <-s.t.ctx.Done():
			s.mu.Lock()
			s.dialing = false
			s.mu.Unlock()
			return
		case <-time.After(redialBackoff):
		}
		c, err := wire.Dial(s.t.ctx, s.opts)
		s.mu.Lock()
		if err == nil && !s.closed {
			s.conn.Store(c)
			s.dialing = false
			s.mu.Unlock()
			return
		}
		if err == nil {
			_ = c.Close()
			err = errors.New("transport closed")
		}
		s.lastErr = err
		s.mu.Unlock()
	}
}

// unavailable is the error a request gets when its connection is down.
func (s *slot) unavailable() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := "connecting"
	if s.lastErr != nil {
		msg = s.lastErr.Error()
	}
	return status.Error(codes.Unavailable, fmt.Sprintf("%s: %s", s.opts.Address, msg))
}

func (t *wireTransport) invoke(context.Context, int, Method, any, any) error {
	return errors.New("the wire transport does not decode replies")
}

func (t *wireTransport) authenticates() bool { return false }

func (t *wireTransport) refreshAuth(context.Context) error { return errNoAuth }

func (t *wireTransport) conns() int { return len(t.slots) }

// close closes every connection and stops redialling; outstanding calls
// end with an error.
func (t *wireTransport) close() {
	t.stop()
	for _, s := range t.slots {
		s.mu.Lock()
		s.closed = true
		c := s.conn.Swap(nil)
		s.mu.Unlock()
		if c != nil {
			c.Close()
		}
	}
}
