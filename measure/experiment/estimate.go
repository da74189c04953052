package experiment

import (
	"fmt"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// The estimate's model. It is an estimate, said to be one wherever it is
// shown (docs/experiments.md, "Estimated time"):
const (
	// CellOverhead is a fresh cluster's start (every member healthy, a
	// leader) plus its teardown: the median over the built-ins' quick
	// cells on this project's 2-core machine was 1.3 to 4.4 s per
	// experiment, 3.0 s for storage-sweep's (docs/experiments.md).
	CellOverhead = 3 * time.Second
	// baseLatency is a put's latency on loopback without emulated delays
	// (docs/benchmarks.md); the jobs model their work from it.
	baseLatency = 2 * time.Millisecond
)

// estimate models how long cell c takes: the overhead of its cluster, and
// its work's (job.Work.Estimate) at a request's latency on its cluster:
// loopback's, plus the emulated network's, plus twice the median fsync
// delay.
func (s *Spec) estimate(c *Cell) time.Duration {
	overhead := CellOverhead
	if c.Setup.Live() {
		overhead = 0
	}
	lat := baseLatency
	var fsync time.Duration
	if !c.Setup.Live() {
		if o, err := s.clusterOptions(c.Setup, setupEnv{}); err == nil {
			lat += emulatedLatency(o)
			if o.FsyncDelay != nil {
				fsync = o.FsyncDelay.Median()
				lat += 2 * fsync
			}
		}
	}
	return overhead + c.Work.Estimate(job.Env{Latency: lat, Fsync: fsync})
}

// emulatedLatency is what an emulated network adds to a put, averaged
// over which member leads: the client's round trip to the leader, and the
// leader's round trip to the follower that completes its quorum.
func emulatedLatency(o cluster.Options) time.Duration {
	if len(o.Links) == 0 {
		return 0
	}
	rtt := func(a, b string) time.Duration {
		return o.Links[wan.Dir{From: a, To: b}].Delay + o.Links[wan.Dir{From: b, To: a}].Delay
	}
	names := make([]string, o.Members)
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
		if q := o.Members / 2; q > 0 && q <= len(peers) {
			sum += peers[q-1] // the quorum's last follower
		}
		sum += rtt(cluster.ClientNode, leader)
	}
	return sum / time.Duration(o.Members)
}
