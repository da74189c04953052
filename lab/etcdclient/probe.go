package etcdclient

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Probe connects to one endpoint the way the client would (TCP, then TLS if
// configured) and returns a one-line error that names the cause: "connection
// refused", "TLS: certificate signed by unknown authority", "TLS: the server
// requires a client certificate". The etcd client itself waits for a usable
// connection until its deadline and then says only "context deadline
// exceeded"; Probe is how etcdlab explains such failures. It honours ctx and
// the dial timeout.
func Probe(ctx context.Context, c Config, endpoint string) error {
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hostport, secure := endpoint, false
	if u, err := url.Parse(endpoint); err == nil && u.Host != "" {
		hostport, secure = u.Host, u.Scheme == "https"
	}
	tlsCfg, err := c.TLS()
	if err != nil {
		return err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", hostport)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && errno == syscall.ECONNREFUSED {
			return errors.New("connection refused")
		}
		return errors.New(Describe(err))
	}
	defer conn.Close()
	if tlsCfg == nil || (!secure && strings.Contains(endpoint, "://")) {
		return nil
	}
	cfg := tlsCfg.Clone()
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(hostport)
	}
	cfg.NextProtos = []string{"h2"}
	tc := tls.Client(conn, cfg)
	if dl, ok := ctx.Deadline(); ok {
		_ = tc.SetDeadline(dl)
	}
	if err := tc.HandshakeContext(ctx); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
			return errors.New("TLS: the server does not speak TLS (it closed the connection during the handshake)")
		}
		return errors.New(Describe(err))
	}
	// With TLS 1.3 a refused client certificate shows on the first read.
	_ = tc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := tc.Read(make([]byte, 1)); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil
		}
		return errors.New(Describe(err))
	}
	return nil
}
