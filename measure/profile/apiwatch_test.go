package profile

import (
	"math"
	"testing"

	"github.com/etcdlab/etcdlab/load/replay"
)

// TestRangeSizes: a resource's range row gets keys and bytes per range
// from its storage verbs (a get one key, a list all of them, a count
// none) at the census's sizes plus the wire overheads; a prefix without
// sizes keeps the operation's.
func TestRangeSizes(t *testing.T) {
	k := &replay.Keyspace{Prefixes: []replay.PrefixShape{
		{Prefix: "/kube/registry/pods/", Resource: "pods", Keys: 40, KeyBytes: 34, ValueBytes: 950},
		{Prefix: "/registry/minions/", Keys: 3},
	}}
	for _, tc := range []struct {
		name, resource      string
		verbs               map[string]float64
		wantKeys, wantBytes float64
	}{
		{"gets", "pods", map[string]float64{"get": 2}, 1, 1000 + rangeResponse},
		{"lists", "pods", map[string]float64{"list": 1}, 40, 40*1000 + rangeResponse},
		{"a get, a list, two counts", "pods", map[string]float64{"get": 1, "list": 1, "listWithCount": 2}, 41.0 / 4, 41.0/4*1000 + rangeResponse},
		{"no sizes", "nodes", map[string]float64{"get": 1}, 0, 77},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := replay.Operation{Op: replay.OpRange, Resource: tc.resource, Prefix: resourcePrefix(k, tc.resource), RangeBytes: 77}
			rangeSizes(&o, k, tc.verbs, 0)
			if math.Abs(o.RangeKeys-tc.wantKeys) > 1e-9 || math.Abs(o.RangeBytes-tc.wantBytes) > 1e-9 {
				t.Errorf("keys %g bytes %g, want %g and %g (%s)", o.RangeKeys, o.RangeBytes, tc.wantKeys, tc.wantBytes, o.Prefix)
			}
		})
	}
}

// TestAPIWatches: every apiserver watches every resource it serves but
// events once, with prev_kv, on the keyspace's prefix of the resource;
// the profile's watchers cap them.
func TestAPIWatches(t *testing.T) {
	v := apiView{apiservers: 2, objects: map[string]float64{"pods": 4, "events": 9},
		rates: map[string]map[string]float64{replay.OpTxn: {"leases": 3}}}
	for _, tc := range []struct {
		name     string
		watchers int
		want     []replay.WatchPrefix
	}{
		{"room for all", 10, []replay.WatchPrefix{{Prefix: "/registry/leases/", Watchers: 2, PrevKV: true}, {Prefix: "/x/registry/pods/", Watchers: 2, PrevKV: true}}},
		{"capped", 3, []replay.WatchPrefix{{Prefix: "/registry/leases/", Watchers: 2, PrevKV: true}, {Prefix: "/x/registry/pods/", Watchers: 1, PrevKV: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &replay.Profile{Watches: &replay.Watches{Watchers: tc.watchers},
				Keyspace: &replay.Keyspace{Prefixes: []replay.PrefixShape{{Prefix: "/x/registry/pods/", Keys: 4}}}}
			apiWatches(p, v)
			got := p.Watches.Prefixes
			if len(got) != len(tc.want) {
				t.Fatalf("prefixes %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("prefix %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
