package load

import (
	"fmt"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// unmarshaler is what etcd's generated API types (gogo/protobuf) implement
// to decode without reflection; Message is their encoding half.
type unmarshaler interface {
	Unmarshal([]byte) error
}

// gogoCodec marshals etcd's messages (and pre-encoded ones) with their
// generated methods into pooled buffers. gRPC's default codec goes through protobuf-go's legacy
// adapter for these types. It is stateless and safe for concurrent use.
type gogoCodec struct{ fallback encoding.CodecV2 }

func newGogoCodec() gogoCodec { return gogoCodec{fallback: encoding.GetCodecV2("proto")} }

// Name is "proto": the wire format is unchanged.
func (gogoCodec) Name() string { return "proto" }

// Marshal encodes v.
func (c gogoCodec) Marshal(v any) (mem.BufferSlice, error) {
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

// Unmarshal decodes data into v. Generated Unmarshal methods copy the bytes
// they keep, so the buffer is released at once.
func (c gogoCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(unmarshaler)
	if !ok {
		return c.fallback.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return m.Unmarshal(buf.ReadOnlyData())
}
