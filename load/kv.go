package load

import (
	mrand "math/rand/v2"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Put writes one key per request, as `benchmark put`.
type Put struct {
	Keys  Keys
	Value []byte
}

// Ops implements Workload.
func (Put) Ops() []string { return []string{"put"} }

// Needs implements Workload.
func (Put) Needs() Needs { return Needs{Methods: []Method{MethodPut}} }

// NewClient implements Workload.
func (w Put) NewClient(c ClientInfo) Client {
	p := &putClient{keys: w.Keys, req: &pb.PutRequest{Value: w.Value}}
	p.msg = asMessage(p.req)
	if !w.Keys.Sequential {
		p.rnd = newRand(c.ID)
	}
	return p
}

// Probe implements Prober: a put of the key space's first key.
func (w Put) Probe() Request {
	return Request{Method: MethodPut, Msg: encode(&pb.PutRequest{Key: w.Keys.Append(nil, 0), Value: w.Value})}
}

type putClient struct {
	keys Keys
	rnd  *mrand.Rand
	buf  []byte
	req  *pb.PutRequest
	msg  Message // req
}

func (p *putClient) Next(seq int64) Request {
	p.buf = p.keys.Append(p.buf[:0], p.keys.Index(seq, p.rnd))
	p.req.Key = p.buf
	return Request{Method: MethodPut, Msg: p.msg}
}

// Range reads a key or range, as `benchmark range key [end]`.
type Range struct {
	Key, End     string
	Limit        int64
	Serializable bool
	CountOnly    bool
}

// Ops implements Workload.
func (Range) Ops() []string { return []string{"range"} }

// Needs implements Workload.
func (Range) Needs() Needs { return Needs{Methods: []Method{MethodRange}} }

// NewClient implements Workload. Every request is the same message,
// marshalled once.
func (w Range) NewClient(ClientInfo) Client {
	return rangeClient{msg: encode(&pb.RangeRequest{Key: []byte(w.Key), RangeEnd: []byte(w.End), Limit: w.Limit,
		Serializable: w.Serializable, CountOnly: w.CountOnly})}
}

// Probe implements Prober: the workload's read, limited to one key.
func (w Range) Probe() Request {
	return Request{Method: MethodRange, Msg: encode(&pb.RangeRequest{Key: []byte(w.Key), RangeEnd: []byte(w.End), Limit: 1,
		Serializable: w.Serializable, CountOnly: w.CountOnly})}
}

type rangeClient struct{ msg *encoded }

func (r rangeClient) Next(int64) Request { return Request{Method: MethodRange, Msg: r.msg} }

// TxnPut writes OpsPerTxn keys in one transaction, as `benchmark txn-put`:
// request i writes keys (i*OpsPerTxn+j) mod Space.
type TxnPut struct {
	Keys      Keys
	Value     []byte
	OpsPerTxn int
}

// Ops implements Workload.
func (TxnPut) Ops() []string { return []string{"txn-put"} }

// Needs implements Workload.
func (TxnPut) Needs() Needs { return Needs{Methods: []Method{MethodTxn}} }

// NewClient implements Workload.
func (w TxnPut) NewClient(ClientInfo) Client {
	t := &txnPutClient{w: w, req: &pb.TxnRequest{}, puts: make([]*pb.PutRequest, w.OpsPerTxn), keys: make([][]byte, w.OpsPerTxn)}
	t.req.Success = make([]*pb.RequestOp, w.OpsPerTxn)
	for j := range t.puts {
		t.puts[j] = &pb.PutRequest{Value: w.Value}
		t.req.Success[j] = &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: t.puts[j]}}
	}
	t.msg = asMessage(t.req)
	return t
}

// Probe implements Prober: a transaction writing the key space's first
// key.
func (w TxnPut) Probe() Request { return txnWriteProbe(w.Keys, w.Value) }

// txnWriteProbe is a transaction that writes key 0 of keys.
func txnWriteProbe(keys Keys, value []byte) Request {
	put := &pb.PutRequest{Key: keys.Append(nil, 0), Value: value}
	return Request{Method: MethodTxn, Msg: encode(&pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestPut{RequestPut: put}}}})}
}

type txnPutClient struct {
	w    TxnPut
	req  *pb.TxnRequest
	msg  Message // req
	puts []*pb.PutRequest
	keys [][]byte
}

func (t *txnPutClient) Next(seq int64) Request {
	n := int64(t.w.OpsPerTxn)
	for j := range t.puts {
		t.keys[j] = t.w.Keys.Append(t.keys[j][:0], (seq*n+int64(j))%t.w.Keys.KeySpaceSize)
		t.puts[j].Key = t.keys[j]
	}
	return Request{Method: MethodTxn, Msg: t.msg}
}

// TxnMixed sends transactions that either read a range or write one key, as
// `benchmark txn-mixed`: a read with probability RWRatio/(1+RWRatio). Reads
// cover [ReadKey, ReadEnd) with Limit; writes go to key seq mod Space.
type TxnMixed struct {
	Keys             Keys
	Value            []byte
	RWRatio          float64
	ReadKey, ReadEnd string
	Limit            int64
	Serializable     bool
}

// The operations of TxnMixed.
const (
	txnMixedRead = iota
	txnMixedWrite
)

// Ops implements Workload.
func (TxnMixed) Ops() []string { return []string{"read", "write"} }

// Needs implements Workload.
func (TxnMixed) Needs() Needs { return Needs{Methods: []Method{MethodTxn}} }

// NewClient implements Workload. Reads are the same message, marshalled
// once.
func (w TxnMixed) NewClient(c ClientInfo) Client {
	t := &txnMixedClient{w: w, rnd: newRand(c.ID), put: &pb.PutRequest{Value: w.Value}}
	t.read = encode(&pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestRange{RequestRange: &pb.RangeRequest{
		Key: []byte(w.ReadKey), RangeEnd: []byte(w.ReadEnd), Limit: w.Limit, Serializable: w.Serializable}}}}})
	t.write = asMessage(&pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestPut{RequestPut: t.put}}}})
	return t
}

// Probe implements Prober: the workload writes, so its canary is a
// transaction writing the key space's first key.
func (w TxnMixed) Probe() Request { return txnWriteProbe(w.Keys, w.Value) }

type txnMixedClient struct {
	w     TxnMixed
	rnd   *mrand.Rand
	read  *encoded
	write Message // a TxnRequest putting put
	put   *pb.PutRequest
	buf   []byte
}

func (t *txnMixedClient) Next(seq int64) Request {
	if t.rnd.Float64() < t.w.RWRatio/(1+t.w.RWRatio) {
		return Request{Method: MethodTxn, Msg: t.read, Op: txnMixedRead}
	}
	t.buf = t.w.Keys.Append(t.buf[:0], seq%t.w.Keys.KeySpaceSize)
	t.put.Key = t.buf
	return Request{Method: MethodTxn, Msg: t.write, Op: txnMixedWrite}
}
