package topology

import (
	"fmt"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// PutLatency is what the emulated network of a cluster of members members
// adds to a put, averaged over which member leads: the client's round trip
// to the leader, and the leader's round trip to the follower that completes
// its quorum (jitter left out). 0 without emulated links. Experiments
// model their cells' time with it.
func PutLatency(links map[wan.Dir]wan.Link, members int) time.Duration {
	if len(links) == 0 || members < 1 {
		return 0
	}
	rtt := func(a, b string) time.Duration {
		return links[wan.Dir{From: a, To: b}].Delay + links[wan.Dir{From: b, To: a}].Delay
	}
	names := make([]string, members)
	for i := range names {
		names[i] = fmt.Sprintf("m%d", i+1)
	}
	var sum time.Duration
	for _, leader := range names {
		var peers []time.Duration
		for _, f := range names {
			if f != leader {
				peers = append(peers, rtt(leader, f))
			}
		}
		slices.Sort(peers)
		if q := members / 2; q > 0 && q <= len(peers) {
			sum += peers[q-1] // the quorum's last follower
		}
		sum += rtt(cluster.ClientNode, leader)
	}
	return sum / time.Duration(members)
}

// PassThrough is an emulated network whose links pass bytes straight
// through: no delay, but members can be partitioned (cluster.Options.Links
// non-nil).
func PassThrough() map[wan.Dir]wan.Link { return map[wan.Dir]wan.Link{} }
