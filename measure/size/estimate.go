package size

import "time"

// The estimate's model of a search (Estimate). Every probe is a fresh
// cluster with the load's keyspace preloaded, then its measured run:
// probeOverhead is what a probe costs besides that run (the cluster's
// start and teardown, the preload, the scrapes; job.CostClusterStart is
// 2.2 s of it, the preload of up to 64 MiB quick or 256 MiB full the
// most of the rest). The probes per search are what the doubling and
// the bisection take when the knee lies within one doubling of the
// target: the target, one or two doublings, then bisection to 15%
// (full) or 40% (quick); the round-trip search likewise from 10 ms.
const (
	probeOverhead   = 8 * time.Second
	kneeProbes      = 6
	kneeProbesQuick = 4
	rttProbes       = 5
	rttProbesQuick  = 3
)

// Estimate models how long Run takes under o, without running anything:
// the idle probe, each candidate's knee search, and the round-trip
// search when o asks for it. It reads only o's candidates, Quick,
// RTTBudget and ProbeTime. It is an estimate: a knee far from the
// target takes more doublings, a candidate that cannot run here none.
func Estimate(o Options) time.Duration {
	dur := o.ProbeTime
	if dur == 0 {
		dur = probeTime
		if o.Quick {
			dur = probeTimeQuick
		}
	}
	knee, rtt := kneeProbes, rttProbes
	if o.Quick {
		knee, rtt = kneeProbesQuick, rttProbesQuick
	}
	probe := dur + probeOverhead
	d := idleTime + probeOverhead + time.Duration(len(o.Candidates)*knee)*probe
	if o.RTTBudget && len(o.Candidates) > 0 {
		d += time.Duration(rtt) * probe
	}
	return d
}

// CheckCandidate checks one candidate as Run would (its members, cores,
// disk and etcd), without the machine's checks (root, the lab's cores):
// an experiment file's size job checks its candidates with it when the
// file is read. Its errors are invalid-input errors of one line.
func CheckCandidate(c Candidate) error { return c.validate() }
