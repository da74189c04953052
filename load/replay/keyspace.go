package replay

import (
	"math"
	"sync/atomic"

	"github.com/etcdlab/etcdlab/load"
)

// Sizes used where a profile says nothing.
const (
	// synthKeys is the keys preloaded under a row's prefix that the
	// census does not shape.
	synthKeys = 100
	// defaultValueBytes is a value's size when no row or census says.
	defaultValueBytes = 256
	// maxKeyDigits bounds the hex part of a key (a census with absurd
	// key sizes makes no absurd keys).
	maxKeyDigits = 512
)

// group is one prefix's keys in the replay: N keys Keys.Append(i), i < N,
// preloaded with values of valueBytes. Deletes and puts share its two
// counters (safe for concurrent use): delete number j deletes key j mod N,
// and a put first re-creates, in order, the keys deleted and not yet
// re-created, then updates random keys. So over a long run the keyspace
// keeps its size as long as the prefix's writes outnumber its deletes (a
// re-creation that overtakes its delete on the wire leaves the key absent
// until delete j+N comes round again).
type group struct {
	src        string // the profile's prefix ("" for the synthetic any/)
	keys       load.Keys
	value      []byte // the preload's value
	keyBytes   int    // a key's length in the replay
	writeShare float64
	deleted    atomic.Int64
	recreated  atomic.Int64
}

// n is the group's key count.
func (g *group) n() int64 { return g.keys.KeySpaceSize }

// nextDelete returns the index of the key the next delete removes.
func (g *group) nextDelete() int64 { return (g.deleted.Add(1) - 1) % g.n() }

// putIndex returns the key the next put writes and whether it re-creates
// a deleted key.
func (g *group) putIndex(rnd interface{ Int64N(int64) int64 }) (int64, bool) {
	for {
		r := g.recreated.Load()
		if r >= g.deleted.Load() {
			return rnd.Int64N(g.n()), false
		}
		if g.recreated.CompareAndSwap(r, r+1) {
			return r % g.n(), true
		}
	}
}

// newGroup makes the group of src's keys: n keys whose mean length is
// about keyBytes (the source's, plus what Prefix adds) with values of
// valueBytes.
func (pl *Plan) newGroup(src string, n int64, keyBytes, valueBytes float64) {
	prefix := pl.groupPrefix(src)
	digits := 1
	for x := n - 1; x >= 16; x /= 16 {
		digits++
	}
	want := int(math.Round(keyBytes)) - len(src)
	digits = min(max(digits, want), maxKeyDigits)
	vb := int(math.Round(valueBytes))
	if vb <= 0 {
		vb = defaultValueBytes
	}
	g := &group{src: src, keys: load.Keys{Prefix: prefix, KeySize: digits, KeySpaceSize: max(n, 1)}, value: load.RandomValue(vb)}
	g.keyBytes = len(prefix) + digits
	pl.groups = append(pl.groups, g)
}

// group returns the group of the profile prefix src, if there is one.
func (pl *Plan) group(src string) *group {
	for _, g := range pl.groups {
		if g.src == src {
			return g
		}
	}
	return nil
}

// buildGroups makes the census's groups, then one for each row's prefix
// that the census does not shape (synthKeys keys, values of the row's
// size), then, if rows without a prefix find no group, "any/".
func (pl *Plan) buildGroups() {
	if k := pl.p.Keyspace; k != nil {
		for _, s := range k.Prefixes {
			if s.Keys > 0 && pl.group(s.Prefix) == nil {
				pl.newGroup(s.Prefix, s.Keys, s.KeyBytes, s.ValueBytes)
			}
		}
		if len(pl.groups) == 0 && k.Keys > 0 {
			vb := 0.0
			if k.Bytes > 0 {
				vb = float64(k.Bytes)/float64(k.Keys) - 32
			}
			pl.newGroup(anyPrefix, k.Keys, 0, vb)
			pl.notef("keyspace: %d keys without prefixes, preloaded under %s", k.Keys, pl.groupPrefix(anyPrefix))
		}
	}
	unprefixed := false
	for _, o := range pl.p.Operations {
		if o.Op == OpKeepalive || o.Op == OpLeaseGrant || o.Op == OpLeaseRevoke {
			continue
		}
		if o.Prefix == "" {
			unprefixed = true
			continue
		}
		if pl.group(o.Prefix) != nil {
			continue
		}
		n := int64(synthKeys)
		if o.RangeKeys > 0 {
			n = max(n, int64(math.Ceil(o.RangeKeys)))
		}
		vb := o.ValueBytes
		if vb == 0 && o.RangeKeys > 0 && o.RangeBytes > 0 {
			vb = o.RangeBytes / o.RangeKeys
		}
		pl.newGroup(o.Prefix, n, 0, vb)
		pl.notef("prefix %s: not in the keyspace census; %d keys preloaded", o.Prefix, n)
	}
	if unprefixed && len(pl.groups) == 0 {
		pl.newGroup(anyPrefix, synthKeys, 0, 0)
	}
}

// anyPrefix is the group of rows without a prefix when nothing is
// preloaded.
const anyPrefix = "any/"

// PreloadKeys is the number of keys Preload writes.
func (pl *Plan) PreloadKeys() int64 {
	var n int64
	for _, g := range pl.groups {
		n += g.n()
	}
	return n
}

// PreloadBytes is what Preload writes: keys and values, in bytes.
func (pl *Plan) PreloadBytes() int64 {
	var b int64
	for _, g := range pl.groups {
		b += g.n() * int64(g.keyBytes+len(g.value))
	}
	return b
}

// WriteBytes estimates what the replay's writes add to the store's
// history: every put's and txn put's key and value, a delete's key, the
// Background's lease keys, over the whole curve.
func (pl *Plan) WriteBytes() int64 {
	perReq := 0.0
	if pl.mix.total > 0 {
		for _, e := range pl.mix.entries {
			perReq += e.rate / pl.mix.total * e.writeBytes()
		}
	}
	b := perReq * pl.curve.Requests()
	if l := pl.p.Leases; l != nil {
		vb := float64(leaseValueBytes)
		if g := pl.bg.leaseGroup; g != nil {
			vb = max(vb, float64(len(g.value)))
		}
		b += math.Round(l.KeysPerLease*float64(l.Count)) * (float64(len(pl.o.Prefix)) + 32 + vb)
	}
	return int64(b)
}
