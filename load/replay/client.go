package replay

import (
	mrand "math/rand/v2"

	"github.com/etcdlab/etcdlab/load"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// mixClient builds one simulated client's requests. Each entry's request
// message is made on the client's first use of the entry and then reused:
// a request changes its keys in place, as load's Put does, so a request
// costs no allocation once every entry has been used. Used by one request
// at a time (load.Client's contract).
type mixClient struct {
	m     *mix
	rnd   *mrand.Rand
	state []*entryState // by entry
}

// entryState is one entry's reused request.
type entryState struct {
	msg    load.Message
	put    *pb.PutRequest
	rng    *pb.RangeRequest
	del    *pb.DeleteRangeRequest
	grant  *pb.LeaseGrantRequest
	revoke *pb.LeaseRevokeRequest
	txn    *txnState
	buf    []byte
}

// txnState is a transaction's reused parts: compares on the puts' keys
// first (mod_revision = 0 for a put that re-creates a deleted key, as
// kube-apiserver's create; mod_revision > 0 for an update, standing for
// its guarded update, whose revision the replay cannot know without
// reading), then on random keys of the group; the success branch's puts,
// ranges (gets of one key) and deletes; the failure branch a get of the
// first compared key, as kube-apiserver reads the object again on a
// conflict.
type txnState struct {
	cmps    []*pb.Compare
	puts    []*pb.PutRequest
	gets    []*pb.RangeRequest
	dels    []*pb.DeleteRangeRequest
	fail    *pb.RangeRequest
	bufs    [][]byte // a key buffer per compare, put, get and delete
	cmpBufs [][]byte
	hasFail bool
}

// Next implements load.Client.
func (c *mixClient) Next(seq int64) load.Request {
	i := c.m.pick(seq)
	e := &c.m.entries[i]
	s := c.state[i]
	if s == nil {
		s = newEntryState(e)
		c.state[i] = s
	}
	switch e.kind {
	case kindPut:
		k, _ := e.g.putIndex(c.rnd)
		s.buf = e.g.keys.Append(s.buf[:0], k)
		s.put.Key = s.buf
		return load.Request{Method: load.MethodPut, Msg: s.msg, Op: e.op}
	case kindRange:
		switch {
		case e.empty:
			s.buf = append(append(s.buf[:0], e.g.keys.Prefix...), emptyKey...)
		case e.limit > 1:
			s.buf = e.g.keys.Append(s.buf[:0], c.rnd.Int64N(e.g.n()-e.limit+1))
		default:
			s.buf = e.g.keys.Append(s.buf[:0], c.rnd.Int64N(e.g.n()))
		}
		s.rng.Key = s.buf
		s.rng.Serializable = e.serializable > 0 && c.rnd.Float64() < e.serializable
		return load.Request{Method: load.MethodRange, Msg: s.msg, Op: e.op}
	case kindDelete:
		s.buf = e.g.keys.Append(s.buf[:0], e.g.nextDelete())
		s.del.Key = s.buf
		return load.Request{Method: load.MethodDeleteRange, Msg: s.msg, Op: e.op}
	case kindTxn:
		c.fillTxn(e, s.txn)
		return load.Request{Method: load.MethodTxn, Msg: s.msg, Op: e.op}
	case kindRevoke:
		if id, ok := c.m.nextRevoke(); ok {
			s.revoke.ID = id
			return load.Request{Method: load.MethodLeaseRevoke, Msg: s.msg, Op: e.op}
		}
		// Nothing granted long enough ago to revoke: grant instead.
		return c.grantInstead()
	}
	s.grant.ID = c.m.nextGrant()
	return load.Request{Method: load.MethodLeaseGrant, Msg: s.msg, Op: e.op}
}

// emptyKey is the key an empty range reads under its group's prefix: not
// hex, so no key of the group is it.
const emptyKey = "health"

// grantInstead returns a grant from the mix's first grant entry.
func (c *mixClient) grantInstead() load.Request {
	for i := range c.m.entries {
		if c.m.entries[i].kind == kindGrant {
			e := &c.m.entries[i]
			s := c.state[i]
			if s == nil {
				s = newEntryState(e)
				c.state[i] = s
			}
			s.grant.ID = c.m.nextGrant()
			return load.Request{Method: load.MethodLeaseGrant, Msg: s.msg, Op: e.op}
		}
	}
	panic("replay: a revoke entry without a grant entry") // buildMix adds one
}

// nextGrant returns the ID of the workload's next lease.
func (m *mix) nextGrant() int64 { return m.pl.leases.base + m.granted.Add(1) - 1 }

// nextRevoke returns the oldest lease granted at least revokeLag grants
// ago and not revoked yet, if any (none: the request is a grant instead).
func (m *mix) nextRevoke() (int64, bool) {
	for {
		r := m.revoked.Load()
		if r >= m.granted.Load()-revokeLag {
			return 0, false
		}
		if m.revoked.CompareAndSwap(r, r+1) {
			return m.pl.leases.base + r, true
		}
	}
}

// fillTxn sets the keys of t's next transaction.
func (c *mixClient) fillTxn(e *entry, t *txnState) {
	g := e.g
	for j, p := range t.puts {
		k, create := g.putIndex(c.rnd)
		t.bufs[j] = g.keys.Append(t.bufs[j][:0], k)
		p.Key = t.bufs[j]
		p.Value = e.value
		if create && e.createValue != nil {
			p.Value = e.createValue
		}
		if j < len(t.cmps) {
			cmp := t.cmps[j]
			cmp.Key = p.Key
			cmp.Result = pb.Compare_GREATER
			if create {
				cmp.Result = pb.Compare_EQUAL
			}
		}
	}
	for j := len(t.puts); j < len(t.cmps); j++ {
		t.cmpBufs[j] = g.keys.Append(t.cmpBufs[j][:0], c.rnd.Int64N(g.n()))
		t.cmps[j].Key = t.cmpBufs[j]
	}
	off := len(t.puts)
	for j, r := range t.gets {
		t.bufs[off+j] = g.keys.Append(t.bufs[off+j][:0], c.rnd.Int64N(g.n()))
		r.Key = t.bufs[off+j]
	}
	off += len(t.gets)
	for j, d := range t.dels {
		t.bufs[off+j] = g.keys.Append(t.bufs[off+j][:0], g.nextDelete())
		d.Key = t.bufs[off+j]
	}
	if t.hasFail {
		t.fail.Key = t.cmps[0].Key
	}
}

// newEntryState makes e's request message.
func newEntryState(e *entry) *entryState {
	s := &entryState{}
	switch e.kind {
	case kindPut:
		s.put = &pb.PutRequest{Value: e.value}
		s.msg = load.AsMessage(s.put)
	case kindRange:
		s.rng = &pb.RangeRequest{Limit: e.limit}
		if e.limit > 1 {
			s.rng.RangeEnd = []byte(load.PrefixEnd(e.g.keys.Prefix))
		}
		s.msg = load.AsMessage(s.rng)
	case kindDelete:
		s.del = &pb.DeleteRangeRequest{}
		s.msg = load.AsMessage(s.del)
	case kindGrant:
		s.grant = &pb.LeaseGrantRequest{TTL: e.ttl}
		s.msg = load.AsMessage(s.grant)
	case kindRevoke:
		s.revoke = &pb.LeaseRevokeRequest{}
		s.msg = load.AsMessage(s.revoke)
	case kindTxn:
		s.txn = newTxnState(e)
		req := &pb.TxnRequest{}
		req.Compare = append(req.Compare, s.txn.cmps...)
		for _, p := range s.txn.puts {
			req.Success = append(req.Success, &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: p}})
		}
		for _, r := range s.txn.gets {
			req.Success = append(req.Success, &pb.RequestOp{Request: &pb.RequestOp_RequestRange{RequestRange: r}})
		}
		for _, d := range s.txn.dels {
			req.Success = append(req.Success, &pb.RequestOp{Request: &pb.RequestOp_RequestDeleteRange{RequestDeleteRange: d}})
		}
		if s.txn.hasFail {
			req.Failure = []*pb.RequestOp{{Request: &pb.RequestOp_RequestRange{RequestRange: s.txn.fail}}}
		}
		s.msg = load.AsMessage(req)
	}
	return s
}

func newTxnState(e *entry) *txnState {
	n := e.txn
	t := &txnState{}
	for range n.compares {
		t.cmps = append(t.cmps, &pb.Compare{Target: pb.Compare_MOD, Result: pb.Compare_GREATER, TargetUnion: &pb.Compare_ModRevision{}})
	}
	t.cmpBufs = make([][]byte, n.compares)
	for range n.puts {
		t.puts = append(t.puts, &pb.PutRequest{Value: e.value})
	}
	for range n.ranges {
		t.gets = append(t.gets, &pb.RangeRequest{})
	}
	for range n.deletes {
		t.dels = append(t.dels, &pb.DeleteRangeRequest{})
	}
	t.bufs = make([][]byte, n.puts+n.ranges+n.deletes)
	if n.compares > 0 {
		t.hasFail = true
		t.fail = &pb.RangeRequest{}
	}
	return t
}
