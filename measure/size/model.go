package size

import (
	"sort"

	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/load/sizing"
	"github.com/etcdlab/etcdlab/result"
)

// modelLoad is a Kubernetes cluster's load by load/sizing's model.
type modelLoad struct {
	c     sizing.Cluster
	quota int64
}

// FromModel sizes for cluster c (zero fields take the model's defaults)
// by load/sizing's model; c is checked first (one-line invalid errors).
func FromModel(c sizing.Cluster, quota int64) (Load, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &modelLoad{c: c, quota: quota}, nil
}

func (l *modelLoad) At(m float64) (*replay.Profile, Point, error) {
	c := l.c
	if m != 1 {
		c = c.Scale(m)
	}
	p := sizing.Model(c).Profile()
	return p, Point{Nodes: c.Nodes, Pods: c.Pods, Churn: c.Churn}, p.Validate()
}

func (l *modelLoad) Target() result.SizeTarget {
	c := l.c
	t := result.SizeTarget{Nodes: c.Nodes, Pods: c.Pods, Namespaces: c.Namespaces, Services: c.Services, Deployments: c.Deployments,
		APIServers: c.APIServers, Watchers: c.WatchersPerAPIServer, Churn: c.Churn, ObjectBytes: c.Bytes.Map()}
	src := sizing.DefaultSources()
	names := make([]string, 0, len(src))
	for k := range src {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Sources = append(t.Sources, k+": "+src[k])
	}
	return t
}

func (l *modelLoad) Summary() result.SizeLoad {
	ld := sizing.Model(l.c)
	s := result.SizeLoad{WritesPerSecond: ld.Writes(), ReadsPerSecond: ld.Reads(), WatchEventsPerSecond: ld.WatchEventsPerSecond,
		Watches: ld.EtcdWatches, DBBytes: ld.DBBytes, DBMethod: sizing.DBMethod, QuotaBytes: l.quota,
		Model: "load/sizing's model of Kubernetes v1.34's defaults (docs/sizing.md)"}
	for _, o := range ld.Objects {
		s.Keys += o.Count
	}
	rates := append([]sizing.Rate(nil), ld.Rates...)
	sort.SliceStable(rates, func(i, j int) bool { return rates[i].PerSecond > rates[j].PerSecond })
	for _, r := range rates {
		s.Rates = append(s.Rates, result.SizeRate{Verb: r.Verb, Resource: r.Resource, PerSecond: r.PerSecond, Source: r.What + " (docs/sizing.md, \"The model\", has its source)"})
	}
	return s
}
