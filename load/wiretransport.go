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
// i mod len, client i on connection i mod len. A broken connection is
// dialled again in the background; meanwhile its requests fail with
// Unavailable.
type wireTransport struct {
	slots []*slot
}

// slot is one connection and its redialling.
type slot struct {
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
func dialWire(ctx context.Context, cfg etcdclient.Config, endpoints []string, n int) (*wireTransport, error) {
	tlsCfg, err := cfg.TLS()
	if err != nil {
		return nil, err
	}
	t := &wireTransport{}
	names := methodNames()
	var firstErr error
	ok := 0
	for i := range n {
		addr, secure := endpointAddr(endpoints[i%len(endpoints)], tlsCfg != nil)
		o := wire.Options{Address: addr, Methods: names, DialTimeout: cfg.DialTimeout}
		if secure {
			o.TLS = tlsCfg
		}
		s := &slot{opts: o}
		if err := s.dial(ctx); err != nil && firstErr == nil {
			firstErr = err
		} else if err == nil {
			ok++
		}
		t.slots = append(t.slots, s)
	}
	if ok == 0 {
		t.close()
		return nil, fmt.Errorf("connect: %w", firstErr)
	}
	return t, nil
}

func (s *slot) dial(ctx context.Context) error {
	c, err := wire.Dial(ctx, s.opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dialing = false
	if err != nil {
		s.lastErr = err
		return err
	}
	if s.closed {
		c.Close()
		return errors.New("transport closed")
	}
	s.conn.Store(c)
	return nil
}

// send calls c's request on its client's connection.
func (t *wireTransport) send(c *client) {
	s := t.slots[c.id%len(t.slots)]
	conn := s.conn.Load()
	if conn == nil {
		c.Done(s.unavailable(nil))
		return
	}
	if err := conn.Call(int(c.req.Method), c.req.Msg, c.deadline, c); err != nil {
		if conn.Err() != nil {
			err = s.unavailable(conn)
		}
		c.Done(err)
	}
}

// unavailable retires a broken connection (nil: none), starts redialling
// unless that is under way, and returns the Unavailable error requests get
// meanwhile.
func (s *slot) unavailable(broken *wire.Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if broken != nil && s.conn.CompareAndSwap(broken, nil) {
		s.lastErr = broken.Err()
	}
	if !s.dialing && !s.closed && s.conn.Load() == nil {
		s.dialing = true
		go func() {
			time.Sleep(redialBackoff)
			_ = s.dial(context.Background())
		}()
	}
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

// close closes every connection; their outstanding calls end with an error.
func (t *wireTransport) close() {
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
