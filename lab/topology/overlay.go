package topology

import (
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// Overlay is what a command lays over a topology (`cluster up`'s --rtt,
// --client-rtt and --etcd-defaults). It is a plain value.
type Overlay struct {
	// RTT, if set, replaces the topology's member-to-member links with
	// this round trip between every pair of members.
	RTT *result.Duration
	// ClientRTT, if set, replaces the topology's client links with this
	// round trip between the clients and every member.
	ClientRTT *result.Duration
	// EtcdDefaults keeps etcd's 100/1000 ms heartbeat and election timeout.
	EtcdDefaults bool
}

// IsZero reports whether o changes nothing.
func (o Overlay) IsZero() bool { return o.RTT == nil && o.ClientRTT == nil && !o.EtcdDefaults }

// WithOverlay lays o over tp (changing it) and returns it; a nil tp is an
// empty topology, unless o changes nothing: then the result is nil too
// (nothing is emulated).
func WithOverlay(tp *Topology, o Overlay) *Topology {
	if o.IsZero() {
		return tp
	}
	if tp == nil {
		tp = &Topology{}
	}
	if o.RTT != nil {
		tp.RTT = o.RTT
		tp.dropLinks(false)
	}
	if o.ClientRTT != nil {
		tp.ClientRTT = o.ClientRTT
		tp.dropLinks(true)
	}
	if o.EtcdDefaults {
		tp.Etcd.Defaults = true
	}
	return tp
}

// dropLinks removes the topology's client links (client) or its member
// links.
func (t *Topology) dropLinks(client bool) {
	var out []Link
	for _, l := range t.Links {
		ends := append(append([]string{}, l.Between...), l.From, l.To)
		isClient := false
		for _, e := range ends {
			isClient = isClient || e == cluster.ClientNode
		}
		if isClient != client {
			out = append(out, l)
		}
	}
	t.Links = out
}
