package experiment

import (
	"time"

	"github.com/etcdlab/etcdlab/lab/topology"
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
// loopback's, plus the emulated network's (topology.PutLatency), plus
// twice the median fsync delay.
func (s *Spec) estimate(c *Cell) time.Duration {
	overhead := CellOverhead
	if c.Setup.Live() {
		overhead = 0
	}
	lat := baseLatency
	var fsync time.Duration
	if !c.Setup.Live() {
		if o, err := s.clusterOptions(c.Setup, setupEnv{}); err == nil {
			lat += topology.PutLatency(o.Links, o.Members)
			if o.FsyncDelay != nil {
				fsync = o.FsyncDelay.Median()
				lat += 2 * fsync
			}
		}
	}
	return overhead + c.Work.Estimate(job.Env{Latency: lat, Fsync: fsync})
}
