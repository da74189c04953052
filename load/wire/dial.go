// Dialling: the TCP (or TLS) connection, the HTTP/2 preface and settings,
// and the request header blocks encoded once per method.

package wire

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"net"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Dial connects and performs the HTTP/2 handshake: it returns once the
// server's settings have arrived, so that the first calls already respect
// them.
func Dial(ctx context.Context, o Options) (*Conn, error) {
	if o.DialTimeout <= 0 {
		o.DialTimeout = 2 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "tcp", o.Address)
	if err != nil {
		return nil, err
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	scheme := "http"
	if o.TLS != nil {
		scheme = "https"
		cfg := o.TLS.Clone()
		cfg.NextProtos = []string{"h2"}
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(o.Address)
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(dctx); err != nil {
			nc.Close()
			return nil, err
		}
		nc = tc
	}
	c := &Conn{
		opts: o, nc: nc, out: new(bytes.Buffer), spare: new(bytes.Buffer), wake: make(chan struct{}, 1),
		calls: make(map[uint32]*call), nextID: 1, sendWin: 65535, initWin: 65535, maxFrame: defaultMaxSend,
		maxStreams: 1<<32 - 1, idle: true, armed: make(chan struct{}, 1), settled: make(chan struct{}), closed: make(chan struct{}),
	}
	c.headers = encodeHeaders(o, scheme)
	// Preface, our settings, and a large connection window.
	c.out.WriteString(http2.ClientPreface)
	c.writeFrame(http2.FrameSettings, 0, 0, settingsPayload())
	c.writeFrame(http2.FrameWindowUpdate, 0, 0, u32(recvWindow-65535))
	go c.writer()
	go c.reader()
	go c.sweeper()
	c.kick()
	select {
	case <-c.settled:
		return c, nil
	case <-c.closed:
		return nil, c.Err()
	case <-dctx.Done():
		c.Close()
		return nil, fmt.Errorf("%s sent no HTTP/2 settings within %s", o.Address, o.DialTimeout)
	}
}

func settingsPayload() []byte {
	var b []byte
	for _, s := range []struct {
		id  http2.SettingID
		val uint32
	}{{http2.SettingEnablePush, 0}, {http2.SettingInitialWindowSize, recvWindow}, {http2.SettingMaxHeaderListSize, 1 << 20}} {
		b = binary.BigEndian.AppendUint16(b, uint16(s.id))
		b = binary.BigEndian.AppendUint32(b, s.val)
	}
	return b
}

func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

// encodeHeaders encodes each method's request headers once. Fields are
// "never indexed" literals, so the blocks do not depend on HPACK state and
// can be sent in any order.
func encodeHeaders(o Options, scheme string) [][]byte {
	out := make([][]byte, len(o.Methods))
	for i, m := range o.Methods {
		var b bytes.Buffer
		e := hpack.NewEncoder(&b)
		for _, f := range [][2]string{
			{":method", "POST"}, {":scheme", scheme}, {":path", m}, {":authority", o.Address},
			{"content-type", "application/grpc"}, {"te", "trailers"}, {"user-agent", "etcdlab"},
		} {
			_ = e.WriteField(hpack.HeaderField{Name: f[0], Value: f[1], Sensitive: true})
		}
		out[i] = b.Bytes()
	}
	return out
}
