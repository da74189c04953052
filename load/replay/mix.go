package replay

import (
	"math"
	mrand "math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
)

// kind is what an entry of the mix sends.
type kind int

const (
	kindPut kind = iota
	kindRange
	kindDelete
	kindTxn
	kindGrant
	kindRevoke
)

// entry is one row of the mix on one group: a profile row, or a share of a
// row without a prefix. Immutable.
type entry struct {
	kind  kind
	op    int // index into mix.ops
	g     *group
	rate  float64 // per second, before Scale
	value []byte  // puts' value
	// createValue, when set, is the value of a put that re-creates a
	// deleted key (a txn row's CreateValueBytes); value is then the
	// updates'.
	createValue []byte
	// limit is a range's key count (1: a get of one key); serializable
	// the share of ranges that are.
	limit        int64
	serializable float64
	// empty is a range of a key that does not exist (a row whose
	// RangeBytes is less than one key: kube-apiserver's health checks).
	empty bool
	txn   txnCounts
	ttl   int64 // a grant's TTL in seconds
}

// txnCounts is a transaction's shape in whole operations.
type txnCounts struct{ compares, puts, ranges, deletes int }

// writeBytes is what one request adds to the store's history.
func (e *entry) writeBytes() float64 {
	switch e.kind {
	case kindPut:
		return float64(e.g.keyBytes + len(e.value))
	case kindDelete:
		return float64(e.g.keyBytes)
	case kindTxn:
		return float64(e.txn.puts*(e.g.keyBytes+len(e.value)) + e.txn.deletes*e.g.keyBytes)
	case kindGrant:
		return 16
	}
	return 0
}

// events is the watch events one request causes per watcher of its group.
func (e *entry) events() float64 {
	switch e.kind {
	case kindPut, kindDelete:
		return 1
	case kindTxn:
		return float64(e.txn.puts + e.txn.deletes)
	}
	return 0
}

// mix is the Plan's Workload. Its entries are immutable; the lease
// counters are atomics shared by every client.
type mix struct {
	pl       *Plan
	ops      []string
	entries  []entry
	cum      []float64 // cumulative share of each entry, the last 1
	total    float64   // every entry's rate, per second before Scale
	profiled float64   // the profile's rows' part of total
	granted  atomic.Int64
	revoked  atomic.Int64
	revokes  bool  // an entry revokes
	ttl      int64 // of the workload's leases
}

// Lease pairing. A revoke names the oldest lease granted at least
// revokeLag grants ago, so that it does not overtake its grant on the
// wire; Start grants primedLeases first, so that revokes find leases from
// the first second. Stop revokes what is left.
const (
	revokeLag    = 4
	primedLeases = 16
)

// defaultLeaseTTL is the TTL of the workload's leases when the profile
// gives none.
const defaultLeaseTTL = 60 * time.Second

// buildMix turns the rows into entries. A row without a prefix is split
// over the groups by key count. Lease-revoke needs leases: when the
// profile revokes faster than it grants, grants are added to match.
func (pl *Plan) buildMix() error {
	m := &pl.mix
	m.pl = pl
	ttl := int64(defaultLeaseTTL / time.Second)
	if l := pl.p.Leases; l != nil && l.TTL.D() >= time.Second {
		ttl = int64(l.TTL.D() / time.Second)
	}
	var grants, revokes float64
	m.ttl = ttl
	for _, o := range pl.p.Operations {
		if o.Op == OpKeepalive {
			continue
		}
		m.profiled += o.Rate
		base := entry{rate: o.Rate, serializable: o.Serializable, ttl: ttl}
		switch o.Op {
		case OpLeaseGrant:
			base.kind, grants = kindGrant, grants+o.Rate
			m.add(base, OpLeaseGrant)
			continue
		case OpLeaseRevoke:
			base.kind, revokes, m.revokes = kindRevoke, revokes+o.Rate, true
			m.add(base, OpLeaseRevoke)
			continue
		case OpPut:
			base.kind = kindPut
		case OpRange:
			base.kind = kindRange
		case OpDelete:
			base.kind = kindDelete
		case OpTxn:
			base.kind = kindTxn
			base.txn = txnCounts{puts: 1}
			if t := o.Txn; t != nil {
				base.txn = txnCounts{compares: round(t.Compares), puts: round(t.Puts), ranges: round(t.Ranges), deletes: round(t.Deletes)}
				if base.txn.puts+base.txn.ranges+base.txn.deletes == 0 {
					base.txn.puts = 1
				}
			}
		}
		targets := []*group{pl.group(o.Prefix)}
		if o.Prefix == "" {
			targets = pl.groups
		}
		var keys int64
		for _, g := range targets {
			keys += g.n()
		}
		for _, v := range txnVariants(base, o) {
			for _, g := range targets {
				e := v.e
				e.g = g
				e.rate = o.Rate * v.share * float64(g.n()) / float64(keys)
				e.value = g.value
				if o.ValueBytes > 0 && int(math.Round(o.ValueBytes)) != len(g.value) {
					e.value = load.RandomValue(max(1, int(math.Round(o.ValueBytes))))
				}
				e.limit = rangeLimit(o, g)
				e.empty = o.Op == OpRange && o.RangeKeys == 0 && o.RangeBytes > 0 && o.RangeBytes < float64(g.keyBytes+len(g.value))
				if cv, uv, ok := createSizes(o); ok && e.kind == kindTxn && e.txn.puts > 0 {
					e.createValue, e.value = load.RandomValue(cv), load.RandomValue(uv)
				}
				m.add(e, o.Op)
			}
		}
	}
	if revokes > grants {
		m.add(entry{kind: kindGrant, rate: revokes - grants, ttl: ttl}, OpLeaseGrant)
		pl.notef("lease-grant: %.3g/s added so that the %.3g/s of lease-revoke have leases to revoke", revokes-grants, revokes)
	}
	if len(m.entries) == 0 {
		return nil
	}
	// Ops in the order of Ops(), the entries' op indexes remapped.
	var ops []string
	for _, op := range Ops() {
		if slices.Contains(m.ops, op) {
			ops = append(ops, op)
		}
	}
	for i := range m.entries {
		m.entries[i].op = slices.Index(ops, m.ops[m.entries[i].op])
	}
	m.ops = ops
	var c float64
	for _, e := range m.entries {
		c += e.rate
		m.cum = append(m.cum, c/m.total)
	}
	m.cum[len(m.cum)-1] = 1
	if m.total <= 0 || math.IsInf(m.total, 0) {
		return invalid.Errorf("profile: the operations' rates sum to %g", m.total)
	}
	m.writeShares()
	return nil
}

// add appends e for operation op.
func (m *mix) add(e entry, op string) {
	i := slices.Index(m.ops, op)
	if i < 0 {
		i = len(m.ops)
		m.ops = append(m.ops, op)
	}
	e.op = i
	m.entries = append(m.entries, e)
	m.total += e.rate
}

// writeShares sets each group's share of the mix's watch events.
func (m *mix) writeShares() {
	var all float64
	for _, e := range m.entries {
		all += e.rate * e.events()
	}
	if all == 0 {
		return
	}
	for _, e := range m.entries {
		if e.g != nil {
			e.g.writeShare += e.rate * e.events() / all
		}
	}
}

// createSizes is a txn row's create and update value sizes when it has a
// CreateValueBytes: the replay re-creates, with its puts, the keys its
// deletes removed, so creates are Deletes/Puts of its puts, and updates
// are the size that keeps the row's mean at ValueBytes. ok is false when
// the row has no creates of their own size, or no update size fits.
func createSizes(o Operation) (create, update int, ok bool) {
	t := o.Txn
	if o.CreateValueBytes <= 0 || t == nil || t.Puts <= 0 || t.Deletes <= 0 {
		return 0, 0, false
	}
	k := min(t.Deletes/t.Puts, 0.9) // the share of puts that re-create
	u := (o.ValueBytes - k*o.CreateValueBytes) / (1 - k)
	if u < 1 {
		return 0, 0, false
	}
	return max(1, int(math.Round(o.CreateValueBytes))), int(math.Round(u)), true
}

// variant is one shape of a row's requests and its share of the row.
type variant struct {
	e     entry
	share float64
}

// txnVariants splits a txn row whose shape is one write per txn, some of
// them puts and some deletes (kube-apiserver's: a create or update is a
// guarded put, a delete a guarded delete), into a put txn and a delete
// txn at their shares, so that neither is rounded away; any other row is
// one variant of the whole row.
func txnVariants(base entry, o Operation) []variant {
	t := o.Txn
	if base.kind != kindTxn || t == nil || t.Puts <= 0 || t.Deletes <= 0 || math.Abs(t.Puts+t.Deletes-1) > 0.05 {
		return []variant{{base, 1}}
	}
	put, del := base, base
	put.txn.puts, put.txn.deletes = 1, 0
	del.txn.puts, del.txn.deletes = 0, 1
	share := t.Puts / (t.Puts + t.Deletes)
	return []variant{{put, share}, {del, 1 - share}}
}

// rangeLimit is how many keys a range of row o on g returns: RangeKeys,
// else RangeBytes over the group's key and value size, else 1.
func rangeLimit(o Operation, g *group) int64 {
	n := o.RangeKeys
	if n == 0 && o.RangeBytes > 0 {
		n = o.RangeBytes / float64(g.keyBytes+len(g.value))
	}
	return min(max(1, int64(math.Round(n))), g.n())
}

func round(x float64) int { return int(math.Round(x)) }

// Ops implements load.Workload: the profile's unary operations present,
// in the order of Ops().
func (m *mix) Ops() []string { return slices.Clone(m.ops) }

// Needs implements load.Workload: only unary methods, so the wire
// transport sends it.
func (m *mix) Needs() load.Needs {
	var ms []load.Method
	for _, e := range m.entries {
		var x load.Method
		switch e.kind {
		case kindPut:
			x = load.MethodPut
		case kindRange:
			x = load.MethodRange
		case kindDelete:
			x = load.MethodDeleteRange
		case kindTxn:
			x = load.MethodTxn
		case kindGrant:
			x = load.MethodLeaseGrant
		case kindRevoke:
			x = load.MethodLeaseRevoke
		}
		if !slices.Contains(ms, x) {
			ms = append(ms, x)
		}
	}
	return load.Needs{Methods: ms}
}

// NewClient implements load.Workload.
func (m *mix) NewClient(c load.ClientInfo) load.Client {
	return &mixClient{m: m, rnd: mrand.New(mrand.NewPCG(uint64(c.ID)+1, mrand.Uint64())), state: make([]*entryState, len(m.entries))}
}

// pick returns the entry of request seq: a Weyl sequence over seq (the
// golden ratio's, which spreads any run of consecutive numbers evenly over
// [0, 1)) against the entries' cumulative shares. It reads immutable
// state only.
func (m *mix) pick(seq int64) int {
	const golden = 0x9E3779B97F4A7C15
	u := float64((uint64(seq)*golden)>>11) / (1 << 53)
	i, _ := slices.BinarySearch(m.cum, u)
	if i < len(m.cum) && m.cum[i] == u {
		i++
	}
	return min(i, len(m.cum)-1)
}
