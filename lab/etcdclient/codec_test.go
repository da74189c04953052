package etcdclient

import (
	"bytes"
	"strings"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestGogoCodec checks that the codec puts the same bytes on the wire as
// gRPC's proto codec, small and pooled, that what it reads back equals what
// was sent, and that a message of the newer protobuf API still works.
func TestGogoCodec(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("v", 64<<10)
	for _, tc := range []struct {
		name string
		msg  gogoMessage
		back func() gogoMessage
	}{
		{"small put", &etcdserverpb.PutRequest{Key: []byte("/registry/pods/ns/a"), Value: []byte("k8s\x00x"), PrevKv: true},
			func() gogoMessage { return &etcdserverpb.PutRequest{} }},
		{"pooled range response", &etcdserverpb.RangeResponse{Header: &etcdserverpb.ResponseHeader{Revision: 42},
			Kvs: []*mvccpb.KeyValue{{Key: []byte("k"), Value: []byte(big), ModRevision: 41}}, Count: 1},
			func() gogoMessage { return &etcdserverpb.RangeResponse{} }},
		{"empty", &etcdserverpb.StatusRequest{}, func() gogoMessage { return &etcdserverpb.StatusRequest{} }},
	} {
		got, err := gogoCodec{}.Marshal(tc.msg)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want, err := protoCodec().Marshal(tc.msg)
		if err != nil {
			t.Fatalf("%s: proto codec: %v", tc.name, err)
		}
		if !bytes.Equal(got.Materialize(), want.Materialize()) {
			t.Fatalf("%s: bytes differ from gRPC's proto codec", tc.name)
		}
		back := tc.back()
		if err := (gogoCodec{}).Unmarshal(want, back); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		again, err := gogoCodec{}.Marshal(back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Materialize(), want.Materialize()) {
			t.Fatalf("%s: read back differently", tc.name)
		}
		got.Free()
		want.Free()
		again.Free()
	}

	v2 := wrapperspb.String("not gogo")
	data, err := gogoCodec{}.Marshal(v2)
	if err != nil {
		t.Fatal(err)
	}
	var out wrapperspb.StringValue
	if err := (gogoCodec{}).Unmarshal(data, &out); err != nil || out.GetValue() != "not gogo" {
		t.Fatalf("fallback: %q, %v", out.GetValue(), err)
	}
	if _, err := (gogoCodec{}).Marshal(struct{}{}); err == nil {
		t.Fatal("a value that is no message marshalled")
	}
}
