package load

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
)

// protoMessage is a protobuf message (etcd's generated API types, which
// are protobuf-go messages since etcd 3.7) as a Message. Marshal calls
// MarshalToSizedBuffer right after Size, and the message must not change
// in between, so the sizes that Size caches in the message are reused.
// It is safe for concurrent use as long as the message does not change.
type protoMessage struct{ m proto.Message }

// asMessage returns m as a Message. Clients that reuse one request message
// convert it once and return the same Message from every Next, which
// costs no allocation per request.
func asMessage(m proto.Message) Message { return protoMessage{m: m} }

// Size implements Message.
func (p protoMessage) Size() int { return proto.Size(p.m) }

// MarshalToSizedBuffer implements Message: dst is exactly Size() bytes.
func (p protoMessage) MarshalToSizedBuffer(dst []byte) (int, error) {
	out, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(dst[:0], p.m)
	if err != nil {
		return 0, fmt.Errorf("marshal %T: %w", p.m, err)
	}
	if len(out) != len(dst) || (len(out) > 0 && &out[0] != &dst[0]) {
		return 0, fmt.Errorf("marshal %T: %d bytes, sized %d (the message changed)", p.m, len(out), len(dst))
	}
	return len(out), nil
}

// messageCodec marshals Messages (requests adapted by asMessage and
// pre-encoded ones) into pooled buffers and leaves everything else, the
// replies among them, to gRPC's proto codec. It is stateless and safe for
// concurrent use.
type messageCodec struct{ fallback encoding.CodecV2 }

func newMessageCodec() messageCodec { return messageCodec{fallback: encoding.GetCodecV2("proto")} }

// Name is "proto": the wire format is unchanged.
func (messageCodec) Name() string { return "proto" }

// Marshal encodes v.
func (c messageCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(Message)
	if !ok {
		return c.fallback.Marshal(v)
	}
	size := m.Size()
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	if _, err := m.MarshalToSizedBuffer((*buf)[:size]); err != nil {
		pool.Put(buf)
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal decodes data into v with gRPC's proto codec.
func (c messageCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return c.fallback.Unmarshal(data, v)
}

// AsMessage returns m as a Message, for workloads of other packages that
// reuse one request message per client: convert it once and return the
// same Message from every Next (no allocation per request). m must not
// change while a request carrying it is being sent.
func AsMessage(m proto.Message) Message { return asMessage(m) }
