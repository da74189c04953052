// Receiving: one reader goroutine decodes the server's frames and matches
// responses, trailers, settings, window updates and GOAWAY to calls.

package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

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
