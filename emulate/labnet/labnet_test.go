package labnet

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

func TestNamespaceAddressesAndSources(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	nt, err := New(3)
	if err != nil {
		t.Fatal(err)
	}
	defer nt.Close()
	ln, err := nt.Listen(Addr(0).String() + ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	remote := make(chan net.Addr, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		remote <- c.RemoteAddr()
		_, _ = io.WriteString(c, "hi")
		c.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := nt.Dial(ctx, Addr(2), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(c)
	c.Close()
	if string(b) != "hi" {
		t.Errorf("read %q", b)
	}
	if got := (<-remote).(*net.TCPAddr).IP.String(); got != "10.77.0.3" {
		t.Errorf("source address %s, want 10.77.0.3", got)
	}
	// The addresses exist only inside the namespace: this process's own
	// namespace cannot bind them (no packet is sent to find out).
	if l, err := net.Listen("tcp", Addr(0).String()+":0"); err == nil {
		l.Close()
		t.Error("10.77.0.1 is bindable outside the namespace")
	}
	nt.Close()
	if err := nt.Do(func() error { return nil }); err == nil {
		t.Error("Do after Close succeeded")
	}
}

func TestAddr(t *testing.T) {
	if Addr(0).String() != "10.77.0.1" || Addr(6).String() != "10.77.0.7" {
		t.Errorf("Addr(0)=%s Addr(6)=%s", Addr(0), Addr(6))
	}
}
