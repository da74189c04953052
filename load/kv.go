package load

import (
	"context"
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

// NewWorker implements Workload.
func (w Put) NewWorker(id int) Worker {
	return &putWorker{w: w, rnd: newRand(id), req: pb.PutRequest{Value: w.Value}}
}

type putWorker struct {
	w   Put
	rnd *mrand.Rand
	buf []byte
	req pb.PutRequest // reused: gRPC has marshalled it when Put returns
}

func (p *putWorker) Do(ctx context.Context, c *Conn, seq int64) (int, error) {
	p.buf = p.w.Keys.Append(p.buf[:0], p.w.Keys.Index(seq, p.rnd))
	p.req.Key = p.buf
	_, err := c.KV.Put(ctx, &p.req)
	return 0, err
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

// NewWorker implements Workload.
func (w Range) NewWorker(int) Worker {
	return &rangeWorker{req: &pb.RangeRequest{Key: []byte(w.Key), RangeEnd: []byte(w.End), Limit: w.Limit,
		Serializable: w.Serializable, CountOnly: w.CountOnly}}
}

type rangeWorker struct{ req *pb.RangeRequest }

func (r *rangeWorker) Do(ctx context.Context, c *Conn, _ int64) (int, error) {
	_, err := c.KV.Range(ctx, r.req)
	return 0, err
}

// TxnPut writes OpsPerTxn keys in one transaction, as `benchmark txn-put`:
// request i writes keys (i*OpsPerTxn+j) mod Space.
type TxnPut struct {
	Keys      Keys
	Value     []byte
	OpsPerTxn int
}

// Ops implements Workload.
func (TxnPut) Ops() []string { return []string{"txn-put"} }

// NewWorker implements Workload.
func (w TxnPut) NewWorker(int) Worker {
	tw := &txnPutWorker{w: w, puts: make([]pb.PutRequest, w.OpsPerTxn), keys: make([][]byte, w.OpsPerTxn)}
	tw.req.Success = make([]*pb.RequestOp, w.OpsPerTxn)
	for j := range tw.puts {
		tw.puts[j].Value = w.Value
		tw.req.Success[j] = &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: &tw.puts[j]}}
	}
	return tw
}

type txnPutWorker struct {
	w    TxnPut
	req  pb.TxnRequest
	puts []pb.PutRequest
	keys [][]byte
}

func (t *txnPutWorker) Do(ctx context.Context, c *Conn, seq int64) (int, error) {
	n := int64(t.w.OpsPerTxn)
	for j := range t.puts {
		t.keys[j] = t.w.Keys.Append(t.keys[j][:0], (seq*n+int64(j))%t.w.Keys.Space)
		t.puts[j].Key = t.keys[j]
	}
	_, err := c.KV.Txn(ctx, &t.req)
	return 0, err
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

// Ops implements Workload.
func (TxnMixed) Ops() []string { return []string{"read", "write"} }

// NewWorker implements Workload.
func (w TxnMixed) NewWorker(id int) Worker {
	tw := &txnMixedWorker{w: w, rnd: newRand(id), put: pb.PutRequest{Value: w.Value}}
	tw.read.Success = []*pb.RequestOp{{Request: &pb.RequestOp_RequestRange{RequestRange: &pb.RangeRequest{
		Key: []byte(w.ReadKey), RangeEnd: []byte(w.ReadEnd), Limit: w.Limit, Serializable: w.Serializable}}}}
	tw.write.Success = []*pb.RequestOp{{Request: &pb.RequestOp_RequestPut{RequestPut: &tw.put}}}
	return tw
}

type txnMixedWorker struct {
	w           TxnMixed
	rnd         *mrand.Rand
	read, write pb.TxnRequest
	put         pb.PutRequest
	buf         []byte
}

func (t *txnMixedWorker) Do(ctx context.Context, c *Conn, seq int64) (int, error) {
	if t.rnd.Float64() < t.w.RWRatio/(1+t.w.RWRatio) {
		_, err := c.KV.Txn(ctx, &t.read)
		return 0, err
	}
	t.buf = t.w.Keys.Append(t.buf[:0], seq%t.w.Keys.Space)
	t.put.Key = t.buf
	_, err := c.KV.Txn(ctx, &t.write)
	return 1, err
}
