package size

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/result"
)

// Load is the target's etcd load, at any multiple of the target's size.
// Implementations are read-only and safe for concurrent use.
type Load interface {
	// At returns the load of the target times m (m = 1: the target) as
	// a profile bench replay plays, and the size it stands for.
	At(m float64) (*replay.Profile, Point, error)
	// Target describes the target for the answer, and Summary its load
	// at m = 1.
	Target() result.SizeTarget
	Summary() result.SizeLoad
}

// Point is the Kubernetes size a load stands for (zero for a profile's).
type Point struct {
	Nodes, Pods int
	Churn       float64
}

// profileLoad is a live cluster's profile, multiplied.
type profileLoad struct {
	p     *replay.Profile
	name  string
	scale float64
	quota int64
}

// FromProfile sizes for a profile (etcdlab profile's) times scale: every
// rate, the keyspace and the leases scale; the watchers (the apiservers'
// watch caches) do not. A profile's series is dropped: each probe plays
// its mean mix.
func FromProfile(p *replay.Profile, name string, scale float64, quota int64) (Load, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if scale <= 0 {
		scale = 1
	}
	return &profileLoad{p: p, name: name, scale: scale, quota: quota}, nil
}

func (l *profileLoad) At(m float64) (*replay.Profile, Point, error) {
	q, err := scaleProfile(l.p, l.scale*m)
	return q, Point{}, err
}

func (l *profileLoad) Target() result.SizeTarget {
	return result.SizeTarget{Profile: l.name, Scale: l.scale,
		Sources: []string{"the profile " + l.name + " (etcdlab profile), every rate and key times " + fmt.Sprint(l.scale)}}
}

func (l *profileLoad) Summary() result.SizeLoad {
	q, _ := scaleProfile(l.p, l.scale)
	return summarize(q, l.quota, "profile "+l.name)
}

// summarize is a profile's load as the answer shows it. The database is
// projected from the profile's own file size (when it has one) times the
// scale.
func summarize(p *replay.Profile, quota int64, model string) result.SizeLoad {
	s := result.SizeLoad{Model: model, QuotaBytes: quota}
	for _, o := range p.Operations {
		r := result.SizeRate{Verb: o.Op, Resource: o.Resource, PerSecond: o.Rate, Source: o.From}
		switch o.Op {
		case replay.OpRange:
			s.ReadsPerSecond += o.Rate
		case replay.OpPut, replay.OpDelete, replay.OpTxn:
			s.WritesPerSecond += o.Rate
		}
		s.Rates = append(s.Rates, r)
	}
	if p.Watches != nil {
		s.Watches = p.Watches.Watchers
		s.WatchEventsPerSecond = p.Watches.EventsPerSecond
	}
	if k := p.Keyspace; k != nil {
		s.Keys = k.Keys
		s.DBBytes = k.DBSize
		s.DBMethod = "the profile's database file size times the scale"
	}
	return s
}

// scaleProfile returns a copy of p with every rate, the keyspace's keys
// and bytes, the database and the leases times s, and no series.
func scaleProfile(p *replay.Profile, s float64) (*replay.Profile, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	var q replay.Profile
	if err := json.Unmarshal(b, &q); err != nil {
		return nil, err
	}
	q.Series = nil
	for i := range q.Operations {
		q.Operations[i].Rate *= s
	}
	q.Totals.RequestsPerSecond *= s
	q.Totals.RevisionsPerSecond *= s
	q.Totals.DBGrowthPerSecond *= s
	if k := q.Keyspace; k != nil {
		k.Keys = scaleCount(k.Keys, s)
		k.Bytes = int64(float64(k.Bytes) * s)
		k.DBSize = int64(float64(k.DBSize) * s)
		k.DBSizeInUse = int64(float64(k.DBSizeInUse) * s)
		k.Revision, k.CompactRevision = 0, 0
		for i := range k.Prefixes {
			k.Prefixes[i].Keys = scaleCount(k.Prefixes[i].Keys, s)
		}
	}
	if w := q.Watches; w != nil {
		w.EventsPerSecond *= s
	}
	if l := q.Leases; l != nil {
		l.Count = int(scaleCount(int64(l.Count), s))
		l.KeepalivesPerSecond *= s
	}
	return &q, q.Validate()
}

// scaleCount is n×s rounded, at least 1 where n was.
func scaleCount(n int64, s float64) int64 {
	if n <= 0 {
		return n
	}
	return max(1, int64(math.Round(float64(n)*s)))
}

// capPreload keeps a profile's keyspace within limit bytes: past it, every
// prefix keeps the same share of its keys (its reads and writes go to
// fewer distinct keys; their sizes are unchanged). It returns the share
// kept (1: all).
func capPreload(p *replay.Profile, limit int64) float64 {
	k := p.Keyspace
	if k == nil {
		return 1
	}
	var bytes float64
	for _, ps := range k.Prefixes {
		bytes += float64(ps.Keys) * (ps.KeyBytes + ps.ValueBytes)
	}
	if bytes <= float64(limit) || bytes == 0 {
		return 1
	}
	share := float64(limit) / bytes
	for i := range k.Prefixes {
		k.Prefixes[i].Keys = scaleCount(k.Prefixes[i].Keys, share)
	}
	k.Keys = scaleCount(k.Keys, share)
	k.Bytes = int64(float64(k.Bytes) * share)
	k.DBSize = int64(float64(k.DBSize) * share)
	k.DBSizeInUse = int64(float64(k.DBSizeInUse) * share)
	if l := p.Leases; l != nil && l.Prefix != "" {
		l.Count = int(scaleCount(int64(l.Count), share))
	}
	return share
}
