// Package wire sends unary gRPC calls over HTTP/2 asynchronously, for load
// generation. A gRPC-go client spends most of a small call's CPU on
// per-call machinery (a stream object, a goroutine blocked per call,
// retries, header encoding) and holds one goroutine per outstanding call;
// at 50,000 concurrent clients that is a gigabyte. Here a call is a small
// record: frames are written by hand into one batch per connection, header
// blocks are encoded once per method, responses are matched to calls by
// stream ID, and deadlines are swept in send order. HTTP/2 framing and
// HPACK come from golang.org/x/net/http2.
//
// Only what etcd's unary API needs is implemented: no compression, no
// server push, no streaming calls. Response messages are not decoded; a call
// reports its gRPC status, which is all a load generator needs, and hands
// the response's bytes to a callback that is also a Receiver. The
// server's SETTINGS_MAX_CONCURRENT_STREAMS is honoured: calls beyond it wait
// in send order for a stream, their deadline running.
package wire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Message is a call's request message: what etcd's generated API types
// (gogo/protobuf) implement. A message passed to Call must not change
// until its Callback is called: it is marshalled when the call gets a
// stream, which may be later (see Conn).
type Message interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// Callback receives a call's outcome. Done is called exactly once per
// successful Call, from a goroutine of the connection, and must not block;
// it may start another call.
type Callback interface {
	Done(err error)
}

// Receiver is a Callback that wants the response: Receive gets the
// response message's bytes (without gRPC's length prefix) just before
// Done(nil), from the same goroutine. The bytes are only valid during the
// call; Receive must not block.
type Receiver interface {
	Callback
	Receive(msg []byte)
}

// Options configure a connection.
type Options struct {
	// Address is host:port.
	Address string
	// TLS, if set, is used for the connection (ALPN h2 is added).
	TLS *tls.Config
	// Methods are the full method names calls may use, such as
	// "/etcdserverpb.KV/Put"; Call takes an index into it.
	Methods []string
	// DialTimeout bounds connecting, including the HTTP/2 handshake
	// (default 2 s).
	DialTimeout time.Duration
}

// ErrClosed is what calls outstanding on a closed connection end with.
var ErrClosed = status.Error(codes.Unavailable, "connection closed")

const (
	recvWindow     = 1 << 30 // our receive window: the server is never blocked by us
	sweepInterval  = 5 * time.Millisecond
	defaultMaxSend = 16384
)

// Conn is one HTTP/2 connection. Its methods are safe for concurrent use.
//
// A call gets a stream when it is sent if the server allows another
// (SETTINGS_MAX_CONCURRENT_STREAMS); otherwise it waits in a queue, in send
// order, and gets the next stream that ends. Its deadline runs from when
// it was sent, queued or not.
type Conn struct {
	opts    Options
	nc      net.Conn
	headers [][]byte // HPACK block per method

	mu          sync.Mutex
	out         *bytes.Buffer // frames waiting for the writer
	spare       *bytes.Buffer
	scratch     []byte
	wake        chan struct{}
	calls       map[uint32]*call // calls with an open stream
	fifo        []*call          // every call, in send order (= deadline order)
	queue       []*call          // calls waiting for a stream, from qhead on
	qhead       int
	nextID      uint32
	sendWin     int64 // connection-level window the server gave us
	initWin     int64 // server's SETTINGS_INITIAL_WINDOW_SIZE
	maxFrame    int
	maxStreams  uint32        // server's SETTINGS_MAX_CONCURRENT_STREAMS
	pending     []*call       // calls whose DATA waits for window
	err         error         // set once the connection is broken
	unacked     int64         // DATA bytes received and not yet returned to the server
	idle        bool          // the sweeper waits for armed, not for a deadline
	armed       chan struct{} // wakes the sweeper when a call arrives while it is idle
	settled     chan struct{}
	settledOnce sync.Once
	closed      chan struct{}
	closeOnce   sync.Once
	goAwayAfter uint32
	// receives is set once a call wants its reply (a Receiver); until
	// then DATA frames are not matched to calls.
	receives bool
}

// call is one outstanding call.
type call struct {
	id       uint32 // 0 while it waits for a stream
	cb       Callback
	recv     Receiver // cb, when it wants the response
	resp     []byte   // the response's DATA so far, for recv
	deadline int64    // unix nanos
	done     bool
	method   int     // while it waits for a stream
	msg      Message // while it waits for a stream
	sendWin  int64
	data     []byte // DATA not yet sent (flow control)
	grpcCode int    // -1 until trailers arrive
	grpcMsg  string
	err      error // why it ended, when it ended before its stream did
}

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

// writeFrame appends a frame to the outgoing buffer. Call with mu held (or
// before the writer starts).
func (c *Conn) writeFrame(t http2.FrameType, flags http2.Flags, stream uint32, payload []byte) {
	var h [9]byte
	n := len(payload)
	h[0], h[1], h[2] = byte(n>>16), byte(n>>8), byte(n)
	h[3], h[4] = byte(t), byte(flags)
	binary.BigEndian.PutUint32(h[5:], stream)
	c.out.Write(h[:])
	c.out.Write(payload)
}

// kick wakes the writer.
func (c *Conn) kick() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Call starts a unary call of Methods[method] with msg, which must end by
// deadline. On success the outcome reaches cb.Done later; msg must stay
// unchanged until then. An error means the call was not started (the
// connection is broken, closed or cannot open streams any more).
//
// Deadlines are swept in send order, so calls should be sent in deadline
// order (one timeout for all, as a load run does): a call whose deadline is
// earlier than that of a call sent before it ends at that call's deadline
// at the latest.
func (c *Conn) Call(method int, msg Message, deadline time.Time, cb Callback) error {
	c.mu.Lock()
	if err := c.refusal(); err != nil {
		c.mu.Unlock()
		return err
	}
	cl := &call{cb: cb, deadline: deadline.UnixNano(), grpcCode: -1}
	cl.recv, _ = cb.(Receiver)
	c.receives = c.receives || cl.recv != nil
	if c.qhead < len(c.queue) || uint32(len(c.calls)) >= c.maxStreams {
		cl.method, cl.msg = method, msg
		c.queue = append(c.queue, cl)
		c.enlist(cl)
		c.mu.Unlock()
		return nil
	}
	if err := c.start(cl, method, msg); err != nil {
		c.mu.Unlock()
		return err
	}
	c.enlist(cl)
	c.mu.Unlock()
	c.kick()
	return nil
}

// enlist adds cl to the deadline FIFO, first dropping the calls that ended
// at its front, and wakes an idle sweeper. Call with mu held.
func (c *Conn) enlist(cl *call) {
	for len(c.fifo) > 0 && c.fifo[0].done {
		c.fifo[0] = nil
		c.fifo = c.fifo[1:]
	}
	c.fifo = append(c.fifo, cl)
	if c.idle {
		c.idle = false
		select {
		case c.armed <- struct{}{}:
		default:
		}
	}
}

// refusal says why no new stream can be opened, or returns nil. Call with
// mu held.
func (c *Conn) refusal() error {
	switch {
	case c.err != nil:
		return c.err
	case c.goAwayAfter != 0:
		return status.Error(codes.Unavailable, "the server is going away")
	case c.nextID >= 1<<31-1:
		return status.Error(codes.Unavailable, "connection exhausted its stream IDs")
	}
	return nil
}

// start opens cl's stream: the message is marshalled (framed with the gRPC
// length prefix) and its HEADERS and DATA are queued for the writer. Call
// with mu held.
func (c *Conn) start(cl *call, method int, msg Message) error {
	n := msg.Size()
	buf := slices.Grow(c.scratch[:0], 5+n)[:5+n]
	buf[0] = 0
	binary.BigEndian.PutUint32(buf[1:5], uint32(n))
	if _, err := msg.MarshalToSizedBuffer(buf[5:]); err != nil {
		return status.Error(codes.Internal, "marshal the request: "+err.Error())
	}
	c.scratch = buf
	id := c.nextID
	c.nextID += 2
	cl.id, cl.sendWin = id, c.initWin
	c.calls[id] = cl
	c.writeFrame(http2.FrameHeaders, http2.FlagHeadersEndHeaders, id, c.headers[method])
	if len(c.pending) == 0 && int64(len(buf)) <= c.sendWin && int64(len(buf)) <= cl.sendWin && len(buf) <= c.maxFrame {
		c.sendWin -= int64(len(buf))
		c.writeFrame(http2.FrameData, http2.FlagDataEndStream, id, buf)
	} else {
		cl.data = append([]byte(nil), buf...)
		c.pending = append(c.pending, cl)
		c.pump()
	}
	return nil
}

// startQueued gives the streams the server allows to waiting calls, oldest
// first. Calls that cannot start (the connection no longer opens streams)
// end: they are appended to ended for the caller to complete after
// unlocking. It reports whether it wrote frames. Call with mu held.
func (c *Conn) startQueued(ended []*call) ([]*call, bool) {
	wrote := false
	for c.qhead < len(c.queue) && uint32(len(c.calls)) < c.maxStreams {
		cl := c.queue[c.qhead]
		c.queue[c.qhead] = nil
		c.qhead++
		if cl.done {
			continue
		}
		method, msg := cl.method, cl.msg
		cl.msg = nil
		err := c.refusal()
		if err == nil {
			err = c.start(cl, method, msg)
		}
		if err != nil {
			cl.done, cl.err = true, err
			ended = append(ended, cl)
			continue
		}
		wrote = true
	}
	switch {
	case c.qhead == len(c.queue):
		c.queue, c.qhead = c.queue[:0], 0
	case c.qhead > 1024 && c.qhead > len(c.queue)/2:
		n := copy(c.queue, c.queue[c.qhead:])
		clear(c.queue[n:])
		c.queue, c.qhead = c.queue[:n], 0
	}
	return ended, wrote
}

// pump sends pending DATA as far as flow control allows, in order. Call with
// mu held.
func (c *Conn) pump() {
	for len(c.pending) > 0 {
		cl := c.pending[0]
		if cl.done {
			c.pending = c.pending[1:]
			continue
		}
		for len(cl.data) > 0 {
			n := int64(min(len(cl.data), c.maxFrame))
			n = min(n, c.sendWin, cl.sendWin)
			if n <= 0 {
				return
			}
			flags := http2.Flags(0)
			if int(n) == len(cl.data) {
				flags = http2.FlagDataEndStream
			}
			c.writeFrame(http2.FrameData, flags, cl.id, cl.data[:n])
			c.sendWin -= n
			cl.sendWin -= n
			cl.data = cl.data[n:]
		}
		c.pending = c.pending[1:]
	}
}

// writer sends batched frames: whatever accumulated while the previous
// write was in progress goes out in one write.
func (c *Conn) writer() {
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		}
		c.mu.Lock()
		if c.out.Len() == 0 {
			c.mu.Unlock()
			continue
		}
		buf := c.out
		c.out, c.spare = c.spare, nil
		c.mu.Unlock()
		_, err := c.nc.Write(buf.Bytes())
		buf.Reset()
		c.mu.Lock()
		c.spare = buf
		c.mu.Unlock()
		if err != nil {
			c.fail(status.Error(codes.Unavailable, "write: "+err.Error()))
			return
		}
	}
}

// reader reads frames and completes calls.
func (c *Conn) reader() {
	fr := http2.NewFramer(nil, bufio.NewReaderSize(c.nc, 64<<10))
	fr.SetReuseFrames()
	fr.SetMaxReadFrameSize(1 << 24)
	var cur *call // the call whose header block is being decoded
	dec := hpack.NewDecoder(4096, func(f hpack.HeaderField) {
		if cur == nil {
			return
		}
		switch f.Name {
		case "grpc-status":
			if n, err := strconv.Atoi(f.Value); err == nil {
				cur.grpcCode = n
			}
		case "grpc-message":
			cur.grpcMsg = decodeGrpcMessage(f.Value)
		}
	})
	var headerStream uint32
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			c.fail(status.Error(codes.Unavailable, readErr(err)))
			return
		}
		switch f := f.(type) {
		case *http2.DataFrame:
			c.onData(f)
		case *http2.HeadersFrame:
			cur = c.lookup(f.StreamID)
			headerStream = f.StreamID
			if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
				c.fail(status.Error(codes.Internal, "hpack: "+err.Error()))
				return
			}
			if f.HeadersEnded() {
				if err := dec.Close(); err != nil {
					c.fail(status.Error(codes.Internal, "hpack: "+err.Error()))
					return
				}
				if f.StreamEnded() {
					c.finish(headerStream, nil)
				}
			} else if f.StreamEnded() {
				// END_STREAM with CONTINUATION to follow: finish after it.
				headerStream |= 1 << 31
			}
		case *http2.ContinuationFrame:
			if _, err := dec.Write(f.HeaderBlockFragment()); err != nil {
				c.fail(status.Error(codes.Internal, "hpack: "+err.Error()))
				return
			}
			if f.HeadersEnded() {
				_ = dec.Close()
				if headerStream&(1<<31) != 0 {
					c.finish(headerStream&^(1<<31), nil)
				}
			}
		case *http2.RSTStreamFrame:
			c.finish(f.StreamID, status.Error(codes.Unavailable, "stream reset by the server: "+f.ErrCode.String()))
		case *http2.SettingsFrame:
			c.onSettings(f)
		case *http2.WindowUpdateFrame:
			c.onWindowUpdate(f)
		case *http2.PingFrame:
			if !f.IsAck() {
				c.mu.Lock()
				c.writeFrame(http2.FramePing, http2.FlagPingAck, 0, f.Data[:])
				c.mu.Unlock()
				c.kick()
			}
		case *http2.GoAwayFrame:
			c.onGoAway(f)
		}
	}
}

func readErr(err error) string {
	if errors.Is(err, io.EOF) {
		return "connection closed by the server"
	}
	return "read: " + err.Error()
}

func (c *Conn) lookup(id uint32) *call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id]
}

func (c *Conn) onData(f *http2.DataFrame) {
	n := int64(f.Length)
	c.mu.Lock()
	c.unacked += n
	if c.receives { // a load run's calls want no replies: no lookup per DATA frame then
		if cl := c.calls[f.StreamID]; cl != nil && cl.recv != nil {
			cl.resp = append(cl.resp, f.Data()...) // the framer reuses its buffer
		}
	}
	if c.unacked > recvWindow/2 {
		c.writeFrame(http2.FrameWindowUpdate, 0, 0, u32(uint32(c.unacked)))
		c.unacked = 0
		c.mu.Unlock()
		c.kick()
	} else {
		c.mu.Unlock()
	}
	if f.StreamEnded() {
		c.finish(f.StreamID, nil)
	}
}

func (c *Conn) onSettings(f *http2.SettingsFrame) {
	if f.IsAck() {
		return
	}
	c.mu.Lock()
	_ = f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - c.initWin
			c.initWin = int64(s.Val)
			for _, cl := range c.calls {
				cl.sendWin += delta
			}
		case http2.SettingMaxFrameSize:
			c.maxFrame = int(s.Val)
		case http2.SettingMaxConcurrentStreams:
			c.maxStreams = s.Val
		}
		return nil
	})
	c.writeFrame(http2.FrameSettings, http2.FlagSettingsAck, 0, nil)
	c.pump()
	ended, _ := c.startQueued(nil)
	c.mu.Unlock()
	c.kick()
	c.settledOnce.Do(func() { close(c.settled) })
	complete(ended)
}

func (c *Conn) onWindowUpdate(f *http2.WindowUpdateFrame) {
	c.mu.Lock()
	if f.StreamID == 0 {
		c.sendWin += int64(f.Increment)
	} else if cl := c.calls[f.StreamID]; cl != nil {
		cl.sendWin += int64(f.Increment)
	}
	c.pump()
	c.mu.Unlock()
	c.kick()
}

// onGoAway ends the calls the server will not process, and every call still
// waiting for a stream: the connection opens no more.
func (c *Conn) onGoAway(f *http2.GoAwayFrame) {
	c.mu.Lock()
	c.goAwayAfter = max(f.LastStreamID, 1)
	err := status.Error(codes.Unavailable, "the server is going away: "+f.ErrCode.String())
	var ended []*call
	for id, cl := range c.calls {
		if id > f.LastStreamID {
			delete(c.calls, id)
			cl.done, cl.data, cl.err = true, nil, err
			ended = append(ended, cl)
		}
	}
	for _, cl := range c.queue[c.qhead:] {
		if !cl.done {
			cl.done, cl.msg, cl.err = true, nil, err
			ended = append(ended, cl)
		}
	}
	clear(c.queue)
	c.queue, c.qhead = c.queue[:0], 0
	c.mu.Unlock()
	complete(ended)
}

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

// unframe returns the one message of a unary response: gRPC's 5-byte
// prefix (uncompressed, length) then the message.
func unframe(b []byte) ([]byte, error) {
	switch {
	case len(b) < 5:
		return nil, status.Error(codes.Internal, "response without a message")
	case b[0] != 0:
		return nil, status.Error(codes.Internal, "compressed response (none was asked for)")
	case int(binary.BigEndian.Uint32(b[1:5])) != len(b)-5:
		return nil, status.Error(codes.Internal, fmt.Sprintf("response of %d bytes announced %d", len(b)-5, binary.BigEndian.Uint32(b[1:5])))
	}
	return b[5:], nil
}

// sweeper ends calls whose deadline passed, oldest first, whether they
// have a stream (which is reset) or still wait for one. It sleeps until the
// oldest call's deadline (calls are sent in deadline order), at least
// sweepInterval between sweeps, and while no call is outstanding until Call
// wakes it: with a deadline of seconds it wakes about once per deadline, not
// every few milliseconds.
func (c *Conn) sweeper() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	var expired []*call
	for {
		select {
		case <-t.C:
		case <-c.armed:
		case <-c.closed:
			t.Stop()
			return
		}
		now := time.Now().UnixNano()
		expired = expired[:0]
		c.mu.Lock()
		i, freed := 0, false
		for ; i < len(c.fifo); i++ {
			cl := c.fifo[i]
			if cl.done {
				continue
			}
			if cl.deadline > now {
				break
			}
			cl.done, cl.data, cl.msg, cl.err = true, nil, nil, context.DeadlineExceeded
			if cl.id != 0 {
				delete(c.calls, cl.id)
				c.writeFrame(http2.FrameRSTStream, 0, cl.id, u32(uint32(http2.ErrCodeCancel)))
				freed = true
			}
			expired = append(expired, cl)
		}
		c.fifo = compact(c.fifo, i)
		if freed {
			expired, _ = c.startQueued(expired)
		}
		next := int64(0) // when to sweep again; 0: when Call wakes us
		if len(c.fifo) > 0 {
			next = max(c.fifo[0].deadline, now+int64(sweepInterval))
		}
		c.idle = next == 0
		c.mu.Unlock()
		if next != 0 {
			t.Reset(time.Duration(next - now))
		}
		if len(expired) > 0 {
			c.kick()
		}
		complete(expired)
	}
}

// compact drops the first i entries (and finished ones at the front),
// reusing the backing array when it has become mostly empty.
func compact(q []*call, i int) []*call {
	for i < len(q) && q[i].done {
		i++
	}
	clear(q[:i]) // the calls ended: let them go
	q = q[i:]
	if cap(q) > 1024 && len(q) < cap(q)/4 {
		q = append(make([]*call, 0, 2*len(q)+16), q...)
	}
	return q
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

// decodeGrpcMessage undoes grpc-message percent-encoding.
func decodeGrpcMessage(s string) string {
	if !bytes.ContainsRune([]byte(s), '%') {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b = append(b, byte(v))
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	return string(b)
}

// String describes the connection.
func (c *Conn) String() string { return fmt.Sprintf("wire.Conn(%s)", c.opts.Address) }
