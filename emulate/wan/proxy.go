package wan

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"
)

// Proxy accepts connections for one destination and carries each through
// the links between its source and that destination: bytes from the source
// through Dir{src, To}, replies through Dir{To, src}.
type Proxy struct {
	// To names the destination in the table.
	To string
	// Table holds the links.
	Table *Table
	// Source names the sender of a connection from its remote address;
	// ok false refuses the connection.
	Source func(remote net.Addr) (name string, ok bool)
	// Dial connects to the real destination for a connection from the
	// named source (a proxy may dial from the source's own address, so the
	// destination sees who is really connecting, as TLS peer checks need).
	Dial func(ctx context.Context, from string) (net.Conn, error)
	// DialTimeout bounds Dial; 0 means 5 s.
	DialTimeout time.Duration

	mu     sync.Mutex
	quit   chan struct{}
	ln     net.Listener
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Serve accepts on ln until Close. It returns nil after Close.
func (p *Proxy) Serve(ln net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		ln.Close()
		return nil
	}
	p.ln = ln
	p.conns = map[net.Conn]struct{}{}
	p.quit = make(chan struct{})
	p.mu.Unlock()
	seed := uint64(time.Now().UnixNano())
	for {
		c, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			p.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		seed++
		if !p.track(c) {
			c.Close()
			return nil
		}
		p.wg.Add(1)
		go func(seed uint64) {
			defer p.wg.Done()
			p.handle(c, seed)
		}(seed)
	}
}

// track records a connection so Close can end it; false once closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// handle carries one connection.
func (p *Proxy) handle(in net.Conn, seed uint64) {
	defer p.untrack(in)
	from, ok := p.Source(in.RemoteAddr())
	if !ok {
		in.Close()
		return
	}
	up := p.Table.get(Dir{From: from, To: p.To})
	down := p.Table.get(Dir{From: p.To, To: from})
	timeout := p.DialTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	// A new connection across a partition stalls, as a SYN would, until
	// the link heals or the dial deadline passes.
	deadline := time.Now().Add(timeout)
	for up.link.Load().Partitioned && time.Now().Before(deadline) {
		select {
		case <-p.Table.waitChange():
		case <-time.After(time.Until(deadline)):
		case <-p.quit:
			in.Close()
			return
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	out, err := p.Dial(ctx, from)
	cancel()
	if err != nil || up.link.Load().Partitioned {
		if out != nil {
			out.Close()
		}
		in.Close()
		return
	}
	if !p.track(out) {
		closeBoth(in, out)
		return
	}
	defer p.untrack(out)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pump(p.Table, down, in, out, seed^0xabcdef, p.quit)
	}()
	pump(p.Table, up, out, in, seed, p.quit)
	<-done
	closeBoth(in, out)
}

// Close stops accepting, ends every connection and waits for their
// goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
		close(p.quit)
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}
