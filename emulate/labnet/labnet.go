// Package labnet makes the private network an emulated cluster lives in: a
// new network namespace, owned by this process, whose loopback interface
// carries one address per member (10.77.0.1, 10.77.0.2, ...). Members bind
// their peer connections to their own address (etcd's SetMemberLocalAddr),
// so a proxy can tell who sent a connection; no traffic ever leaves the
// namespace, and the namespace disappears with the last process or file
// that refers to it, so a killed etcdlab leaves nothing behind.
//
// Sockets belong to the namespace of the thread that creates them; Net runs
// such work on one OS thread locked inside the namespace. Creating it needs
// root (CAP_SYS_ADMIN) on Linux.
package labnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"sync"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
)

// Addr returns the address of member i (from 0): 10.77.0.(i+1), which
// exists only inside the namespace.
func Addr(i int) netip.Addr { return netip.AddrFrom4([4]byte{10, 77, 0, byte(i + 1)}) }

// Net is a network namespace with n member addresses. Its methods are safe
// for concurrent use; work runs one call at a time on the namespace's
// thread, so callers keep it short (a listen, a local connect).
type Net struct {
	ns    netns.NsHandle
	n     int
	reqs  chan func()
	once  sync.Once
	close chan struct{}
}

// Available reports why a namespace cannot be made here, or nil.
func Available() error {
	if os.Geteuid() != 0 {
		return errors.New("network emulation needs root (CAP_SYS_ADMIN) to create a network namespace; run as root, or emulate no links")
	}
	return nil
}

// New creates the namespace, brings its loopback up and adds n addresses.
func New(n int) (*Net, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if n < 1 || n > 250 {
		return nil, fmt.Errorf("labnet: %d addresses is out of range", n)
	}
	nt := &Net{n: n, reqs: make(chan func()), close: make(chan struct{})}
	ready := make(chan error, 1)
	proc.GoLocked(func() { nt.thread(ready) })
	if err := <-ready; err != nil {
		return nil, err
	}
	return nt, nil
}

// thread creates the namespace on its locked OS thread (proc.GoLocked: not
// the main thread, never unlocked) and then serves work in it. The thread
// exits with the goroutine, so no other goroutine ever runs in the
// namespace by accident.
func (nt *Net) thread(ready chan<- error) {
	ns, err := netns.New() // creates it and moves this thread into it
	if err != nil {
		ready <- fmt.Errorf("create network namespace: %w", err)
		return
	}
	nt.ns = ns
	if err := nt.setup(); err != nil {
		ns.Close()
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case f := <-nt.reqs:
			f()
		case <-nt.close:
			return
		}
	}
}

func (nt *Net) setup() error {
	h, err := netlink.NewHandleAt(nt.ns)
	if err != nil {
		return fmt.Errorf("netlink in namespace: %w", err)
	}
	defer h.Close()
	lo, err := h.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("namespace loopback: %w", err)
	}
	if err := h.LinkSetUp(lo); err != nil {
		return fmt.Errorf("bring namespace loopback up: %w", err)
	}
	for i := range nt.n {
		a := Addr(i)
		ipn := &net.IPNet{IP: a.AsSlice(), Mask: net.CIDRMask(32, 32)}
		if err := h.AddrAdd(lo, &netlink.Addr{IPNet: ipn}); err != nil {
			return fmt.Errorf("add %s in namespace: %w", a, err)
		}
	}
	return nil
}

// Do runs f on the namespace's thread and returns its error.
func (nt *Net) Do(f func() error) error {
	done := make(chan error, 1)
	select {
	case nt.reqs <- func() { done <- f() }:
	case <-nt.close:
		return errors.New("labnet: namespace closed")
	}
	return <-done
}

// Enter moves the calling OS thread into the namespace. The caller must
// have locked its goroutine to the thread and must never unlock it.
func (nt *Net) Enter() error { return netns.Set(nt.ns) }

// Listen listens on a TCP address inside the namespace.
func (nt *Net) Listen(addr string) (net.Listener, error) {
	var ln net.Listener
	err := nt.Do(func() (err error) {
		ln, err = net.Listen("tcp", addr)
		return err
	})
	return ln, err
}

// Dial connects to addr inside the namespace, from local if it is valid.
func (nt *Net) Dial(ctx context.Context, local netip.Addr, addr string) (net.Conn, error) {
	var c net.Conn
	err := nt.Do(func() (err error) {
		d := net.Dialer{}
		if local.IsValid() {
			d.LocalAddr = &net.TCPAddr{IP: local.AsSlice()}
		}
		c, err = d.DialContext(ctx, "tcp", addr)
		return err
	})
	return c, err
}

// Close ends the namespace's thread and releases this process's hold on
// it. Call it after every process started in it has exited; sockets made
// in it keep working until they are closed.
func (nt *Net) Close() {
	nt.once.Do(func() {
		close(nt.close)
		nt.ns.Close()
	})
}
