package load

import (
	mrand "math/rand/v2"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// The unary KV methods the wire engine calls; Append returns an index here.
var kvMethods = []string{"/etcdserverpb.KV/Range", "/etcdserverpb.KV/Put", "/etcdserverpb.KV/Txn"} //nolint:gochecknoglobals // constant table

const (
	methodRange = iota
	methodPut
	methodTxn
)

// UnaryWorkload is a workload of unary KV calls, which the wire engine can
// run: NewRequest returns the encoder of one connection, used under that
// connection's lock only.
type UnaryWorkload interface {
	Workload
	NewRequest(conn int) Request
}

// Request marshals requests; see wire.Request.
type Request interface {
	Append(dst []byte, seq int64) (out []byte, method, op int)
}

// marshaler is what etcd's generated messages implement.
type marshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// appendMsg marshals m onto dst.
func appendMsg(dst []byte, m marshaler) []byte {
	n := m.Size()
	l := len(dst)
	dst = append(dst, make([]byte, n)...)
	_, _ = m.MarshalToSizedBuffer(dst[l : l+n])
	return dst
}

// NewRequest implements UnaryWorkload.
func (w Put) NewRequest(conn int) Request {
	return &putReq{w: w, rnd: newRand(conn), req: pb.PutRequest{Value: w.Value}}
}

type putReq struct {
	w   Put
	rnd *mrand.Rand
	buf []byte
	req pb.PutRequest
}

func (p *putReq) Append(dst []byte, seq int64) ([]byte, int, int) {
	p.buf = p.w.Keys.Append(p.buf[:0], p.w.Keys.Index(seq, p.rnd))
	p.req.Key = p.buf
	return appendMsg(dst, &p.req), methodPut, 0
}

// NewRequest implements UnaryWorkload.
func (w Range) NewRequest(int) Request {
	r := w.NewWorker(0).(*rangeWorker)
	return &rangeReq{msg: appendMsg(nil, r.req)}
}

type rangeReq struct{ msg []byte }

func (r *rangeReq) Append(dst []byte, _ int64) ([]byte, int, int) {
	return append(dst, r.msg...), methodRange, 0
}

// NewRequest implements UnaryWorkload.
func (w TxnPut) NewRequest(int) Request { return &txnPutReq{w: w.NewWorker(0).(*txnPutWorker)} }

type txnPutReq struct{ w *txnPutWorker }

func (t *txnPutReq) Append(dst []byte, seq int64) ([]byte, int, int) {
	n := int64(t.w.w.OpsPerTxn)
	for j := range t.w.puts {
		t.w.keys[j] = t.w.w.Keys.Append(t.w.keys[j][:0], (seq*n+int64(j))%t.w.w.Keys.Space)
		t.w.puts[j].Key = t.w.keys[j]
	}
	return appendMsg(dst, &t.w.req), methodTxn, 0
}

// NewRequest implements UnaryWorkload.
func (w TxnMixed) NewRequest(conn int) Request {
	return &txnMixedReq{w: w.NewWorker(conn).(*txnMixedWorker)}
}

type txnMixedReq struct{ w *txnMixedWorker }

func (t *txnMixedReq) Append(dst []byte, seq int64) ([]byte, int, int) {
	w := t.w
	if w.rnd.Float64() < w.w.RWRatio/(1+w.w.RWRatio) {
		return appendMsg(dst, &w.read), methodTxn, 0
	}
	w.buf = w.w.Keys.Append(w.buf[:0], seq%w.w.Keys.Space)
	w.put.Key = w.buf
	return appendMsg(dst, &w.write), methodTxn, 1
}
