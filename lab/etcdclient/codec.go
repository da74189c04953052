package etcdclient

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	// The proto codec registers itself; gogoCodec falls back to it.
	_ "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// gogoMessage is what etcd's generated API messages (gogo/protobuf)
// implement.
type gogoMessage interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
	Unmarshal([]byte) error
}

// gogoCodec is gRPC's "proto" codec for etcd's API messages, calling their
// generated Marshal and Unmarshal directly. gRPC's own codec wraps every
// message of the older protobuf API in a reflection adapter on each call
// (protoadapt.MessageV2Of), which was a measurable share of a client's CPU
// in the Kubernetes-shaped workload, where the emulator's cost is compared
// with the members'. The bytes on the wire are the same; any other message
// goes to gRPC's codec. Stateless, safe for concurrent use.
type gogoCodec struct{}

func (gogoCodec) Marshal(v any) (mem.BufferSlice, error) {
	m, ok := v.(gogoMessage)
	if !ok {
		return protoCodec().Marshal(v)
	}
	size := m.Size()
	if mem.IsBelowBufferPoolingThreshold(size) {
		buf := make([]byte, size)
		if _, err := m.MarshalToSizedBuffer(buf); err != nil {
			return nil, err
		}
		return mem.BufferSlice{mem.SliceBuffer(buf)}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	if _, err := m.MarshalToSizedBuffer((*buf)[:size]); err != nil {
		pool.Put(buf)
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

func (gogoCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(gogoMessage)
	if !ok {
		return protoCodec().Unmarshal(data, v)
	}
	// The generated Unmarshal copies bytes fields, so the buffer can go
	// back to the pool.
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return m.Unmarshal(buf.ReadOnlyData())
}

func (gogoCodec) Name() string { return "proto" }

func protoCodec() encoding.CodecV2 { return encoding.GetCodecV2("proto") }

// codecOption makes every call of a client use gogoCodec.
func codecOption() grpc.DialOption {
	return grpc.WithDefaultCallOptions(grpc.ForceCodecV2(gogoCodec{}))
}
