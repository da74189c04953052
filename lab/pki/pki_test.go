package pki

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
	"time"
)

// TestHandshake runs a real TLS handshake over loopback with the issued
// certificates: a client with the client certificate is accepted, one
// without is refused by a server that requires client certificates.
func TestHandshake(t *testing.T) {
	t.Parallel()
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := ca.Server("m1", []string{"127.0.0.1", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	cli, err := ca.Client("client")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.CertPEM()) {
		t.Fatal("CA PEM does not parse")
	}
	srvCert, err := tls.X509KeyPair(srv.CertPEM, srv.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cliCert, err := tls.X509KeyPair(cli.CertPEM, cli.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{srvCert}, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				_ = c.(*tls.Conn).Handshake()
				_, _ = c.Write([]byte("x"))
				c.Close()
			}(c)
		}
	}()
	dial := func(certs []tls.Certificate) error {
		d := &net.Dialer{Timeout: 2 * time.Second}
		c, err := tls.DialWithDialer(d, "tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, Certificates: certs, ServerName: "127.0.0.1"})
		if err != nil {
			return err
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_, err = c.Read(make([]byte, 1))
		return err
	}
	if err := dial([]tls.Certificate{cliCert}); err != nil {
		t.Fatalf("client with certificate refused: %v", err)
	}
	if err := dial(nil); err == nil {
		t.Fatal("client without certificate was accepted")
	}
}

// TestClientIn: the organizations of a client certificate are those asked
// for (Kubernetes' groups), and Client's stay "etcdlab".
func TestClientIn(t *testing.T) {
	t.Parallel()
	ca, err := NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		orgs []string
		want string
	}{{nil, "etcdlab"}, {[]string{"system:masters"}, "system:masters"}} {
		p, err := ca.ClientIn("admin", tc.orgs...)
		if err != nil {
			t.Fatal(err)
		}
		c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		x, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := x.Subject.Organization; len(got) != 1 || got[0] != tc.want || x.Subject.CommonName != "admin" {
			t.Errorf("ClientIn(admin, %v): subject %v, want O=%s", tc.orgs, x.Subject, tc.want)
		}
	}
}
