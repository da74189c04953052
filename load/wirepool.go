package load

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load/wire"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// WirePool is a set of wire connections, connection i to endpoint i mod
// len, as Dial's. A broken connection is dialled again in the background;
// meanwhile its calls fail with Unavailable. Safe for concurrent use.
type WirePool struct {
	slots []*slot
}

type slot struct {
	idx      int
	opts     wire.Options
	workload UnaryWorkload

	mu      sync.Mutex
	conn    *wire.Conn
	req     Request
	dialing bool
	lastErr error
	closed  bool
}

// redialBackoff spaces attempts to reconnect one slot.
const redialBackoff = 200 * time.Millisecond

// DialWire opens n wire connections for workload w. Every call has the
// deadline timeout. It fails if no connection can be made.
func DialWire(ctx context.Context, cfg etcdclient.Config, endpoints []string, n int, w UnaryWorkload, timeout time.Duration) (*WirePool, error) {
	if n < 1 || len(endpoints) == 0 {
		return nil, errors.New("need at least one connection and one endpoint")
	}
	tlsCfg, err := cfg.TLS()
	if err != nil {
		return nil, err
	}
	p := &WirePool{}
	var firstErr error
	ok := 0
	for i := range n {
		addr, secure := hostPort(endpoints[i%len(endpoints)], tlsCfg != nil)
		o := wire.Options{Address: addr, Methods: kvMethods, Timeout: timeout, DialTimeout: cfg.DialTimeout}
		if secure {
			o.TLS = tlsCfg
		}
		s := &slot{idx: i, opts: o, workload: w}
		if err := s.dial(ctx); err != nil && firstErr == nil {
			firstErr = err
		} else if err == nil {
			ok++
		}
		p.slots = append(p.slots, s)
	}
	if ok == 0 {
		p.Close()
		return nil, fmt.Errorf("connect: %w", firstErr)
	}
	return p, nil
}

func hostPort(ep string, haveTLS bool) (string, bool) {
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		return u.Host, u.Scheme == "https" || (haveTLS && u.Scheme != "http")
	}
	return ep, haveTLS
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
		return errors.New("pool closed")
	}
	s.conn, s.req = c, s.workload.NewRequest(s.idx)
	return nil
}

// get returns the slot's live connection and its request encoder, or an
// Unavailable error while it reconnects.
func (s *slot) get() (*wire.Conn, Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && s.conn.Err() == nil {
		return s.conn, s.req, nil
	}
	if s.conn != nil {
		s.lastErr = s.conn.Err()
		s.conn = nil
	}
	if !s.dialing && !s.closed {
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
	return nil, nil, status.Error(codes.Unavailable, fmt.Sprintf("%s: %s", s.opts.Address, msg))
}

// Len returns the number of connections.
func (p *WirePool) Len() int { return len(p.slots) }

// Close closes every connection; their outstanding calls end with an error.
func (p *WirePool) Close() {
	for _, s := range p.slots {
		s.mu.Lock()
		s.closed = true
		c := s.conn
		s.conn = nil
		s.mu.Unlock()
		if c != nil {
			c.Close()
		}
	}
}
