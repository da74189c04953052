package sizing

import (
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/result"
)

// SourceName is the profile's Source.Sources entry.
const SourceName = "sizing-model"

// Wire sizes of a Range response beyond its keys and values, as
// measure/profile's rangeSizes uses them (its TestWireSizes measured
// them): per key-value, per response.
const (
	kvOverhead    = 16
	rangeResponse = 30
)

// Profile returns the load as a profile `bench replay` plays, with the
// conventions of a measured one (measure/profile): per resource, a txn
// row (creates and updates one guarded put, deletes one guarded delete;
// value bytes the mean put, createValueBytes a pod's create) and a range
// row (gets one key, lists every key, counts none, at the objects' key
// and value sizes plus 16 bytes a key and 30 a response), under
// /registry/<resource>/; the health checks a range row without a prefix
// returning nothing; the event leases' grants; the keyspace as the
// objects (the preload); a prev_kv watch per apiserver and watched
// resource; the event leases alive.
func (l Load) Profile() *replay.Profile {
	p := &replay.Profile{Kind: replay.Kind, Version: replay.Version,
		Source: replay.Source{Taken: time.Now().UTC().Format(time.RFC3339), Sources: []string{SourceName}}}
	const from = SourceName
	ks := &replay.Keyspace{From: from + ": the objects the cluster's size implies"}
	for _, o := range l.Objects {
		if o.Count <= 0 {
			continue
		}
		ks.Keys += o.Count
		ks.Bytes += o.Count * int64(o.KeyBytes+o.Bytes)
		ks.Prefixes = append(ks.Prefixes, replay.PrefixShape{Prefix: o.Prefix, Resource: o.Resource, Keys: o.Count,
			KeyBytes: float64(o.KeyBytes), ValueBytes: float64(o.Bytes)})
	}
	p.Keyspace = ks
	for _, o := range l.Objects {
		v := func(verb string) float64 { return l.Total(verb, o.Resource) }
		c, u, d := v("create"), v("update"), v("delete")
		if n := c + u + d; n > 0 {
			row := replay.Operation{Op: replay.OpTxn, Prefix: o.Prefix, Resource: o.Resource, Rate: n,
				Txn:  &replay.TxnShape{Compares: 1, Puts: (c + u) / n, Deletes: d / n},
				From: from + ": creates and updates (one guarded put), deletes (one guarded delete)"}
			if c+u > 0 {
				cb := float64(createBytes(l.Cluster, o.Resource, o.Bytes))
				row.ValueBytes = (c*cb + u*float64(o.Bytes)) / (c + u)
				if cb < row.ValueBytes {
					row.CreateValueBytes = cb
				}
			}
			p.Operations = append(p.Operations, row)
		}
		get, list, count := v("get"), v("list"), v("listWithCount")
		if all := get + list + count; all > 0 {
			keys := (get*min(1, float64(o.Count)) + list*float64(o.Count)) / all
			p.Operations = append(p.Operations, replay.Operation{Op: replay.OpRange, Prefix: o.Prefix, Resource: o.Resource, Rate: all,
				RangeKeys: keys, RangeBytes: keys*float64(o.KeyBytes+o.Bytes+kvOverhead) + rangeResponse,
				From: fmt.Sprintf("%s: gets (one key), lists (all %d keys) and counts (none), at the objects' sizes plus %d bytes a key and %d a response",
					from, o.Count, kvOverhead, rangeResponse)})
		}
	}
	for _, r := range l.Other {
		switch {
		case r.Verb == "get" && r.Resource == "health":
			p.Operations = append(p.Operations, replay.Operation{Op: replay.OpRange, Rate: r.PerSecond, RangeBytes: rangeResponse,
				From: from + ": kube-apiserver's health checks, gets of a key that does not exist"})
		case r.Verb == "lease-grant":
			p.Operations = append(p.Operations, replay.Operation{Op: replay.OpLeaseGrant, Rate: r.PerSecond, From: from + ": event leases"})
		}
	}
	w := &replay.Watches{Watchers: l.EtcdWatches, Streams: l.Cluster.APIServers, EventsPerSecond: l.WatchEventsPerSecond,
		From: from + ": a prev_kv watch per apiserver and watched resource"}
	if l.RevisionsPerSecond > 0 {
		w.FanOut = l.WatchEventsPerSecond / l.RevisionsPerSecond
	}
	for _, o := range l.Objects {
		for _, r := range l.WatchedResources {
			if r == o.Resource {
				w.Prefixes = append(w.Prefixes, replay.WatchPrefix{Prefix: o.Prefix, Watchers: l.Cluster.APIServers, PrevKV: true})
			}
		}
	}
	p.Watches = w
	if l.Leases.Alive > 0 {
		p.Leases = &replay.Leases{Count: int(l.Leases.Alive), TTL: result.Duration(l.Leases.TTL), KeysPerLease: l.Leases.ObjectsPerLease,
			Prefix: "/registry/events/", From: from + ": event leases (never kept alive: they expire)"}
	}
	var total float64
	for _, o := range p.Operations {
		total += o.Rate
	}
	p.Totals = replay.Totals{RequestsPerSecond: total, RevisionsPerSecond: l.RevisionsPerSecond,
		CompactionsPerHour: time.Hour.Seconds() / kubeCompaction().Seconds(), From: from}
	p.Unattributed = append(p.Unattributed,
		"compaction's election txn on compact_rev_key (one each 5 min) and the events' expiry deletes are not rows: a replay compacts as its target does",
		"the model's rates are steady state: no series")
	return p
}

// kubeCompaction is kube-apiserver's compaction interval.
func kubeCompaction() time.Duration { return kube.DefaultLimits().CompactionInterval }
