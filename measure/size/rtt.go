package size

import (
	"context"
	"math"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// The round-trip search: doubling from rttStart up to rttMax, then
// bisection to rttResolution (hi/lo) or rttStep, whichever is coarser.
const (
	rttStart      = 10 * time.Millisecond
	rttMax        = 640 * time.Millisecond
	rttResolution = 1.25
	rttStep       = 5 * time.Millisecond
	// OpenShift's rule for etcd's default 100 ms heartbeat: heartbeat
	// about 1.5 × RTT (openshift-docs modules/understand-etcd-performance.adoc).
	openShiftAvgMs = 33
	openShiftMaxMs = 66
	srcOpenShift   = "openshift-docs modules/understand-etcd-performance.adoc: the heartbeat should be about 1.5 × the round trip; " +
		"with the default 100 ms, the average round trip under 33 ms and the maximum under 66 ms"
)

// rttBudget searches the largest round trip between every pair of members
// at which candidate c still holds every SLO at the target, with etcd's
// default heartbeat and election timeout (100 ms, 1 s: OpenShift's rule
// assumes them).
func (r *runner) rttBudget(ctx context.Context, c Candidate, sc *result.SizeCandidate) *result.SizeRTT {
	out := &result.SizeRTT{Candidate: sc.Name, OpenShiftAvgMs: openShiftAvgMs, OpenShiftMaxMs: openShiftMaxMs, OpenShiftRule: srcOpenShift}
	probe := r.prober(c, sc.Scale, sc.LabCPUs)
	res := rttResolution
	if r.o.Quick {
		res = 1.5
	}
	var lo, hi time.Duration // held, broke (0: none yet)
	run := func(d time.Duration) (held, stop bool) {
		p := probe(ctx, 1, d)
		out.Probes = append(out.Probes, p)
		if !p.Holds && p.Error == "" && p.Inconclusive == "" && ctx.Err() == nil && diskOnly(p.Broke) {
			// The disk's SLOs do not follow the round trip: a break of
			// those alone is the disk's at that moment (this machine's
			// is shared), so the probe runs once more and the second
			// verdict counts.
			p = probe(ctx, 1, d)
			out.Probes = append(out.Probes, p)
		}
		if ctx.Err() != nil || p.Error != "" || p.Inconclusive != "" {
			return false, true
		}
		if !p.Holds && (out.BrokeMs == 0 || ms(d) < out.BrokeMs) {
			out.BrokeMs = ms(d)
			if len(p.Broke) > 0 {
				out.BrokeFirst = p.Broke[0]
			}
		}
		return p.Holds, false
	}
	stop := false
	for d := max(rttStart, c.RTT*2); d <= rttMax; d *= 2 {
		h, s := run(d)
		if s {
			stop = true
			break
		}
		if !h {
			hi = d
			break
		}
		lo = d
	}
	if lo == 0 && hi > 0 {
		lo = c.RTT // the candidate's own round trip held at the target
	}
	for !stop && hi > 0 && hi-lo > rttStep && (lo == 0 || float64(hi)/float64(lo) > res) {
		mid := time.Duration(math.Sqrt(float64(max(lo, time.Millisecond)) * float64(hi))).Round(time.Millisecond)
		if mid <= lo || mid >= hi {
			break
		}
		h, s := run(mid)
		if s {
			break
		}
		if h {
			lo = mid
		} else {
			hi = mid
		}
	}
	out.BudgetMs = ms(lo)
	out.Above = hi == 0 && lo > 0
	return out
}

// diskOnly says every SLO in broke is one the round trip does not drive
// (the disk's fsync and commit, the database's size).
func diskOnly(broke []string) bool {
	for _, b := range broke {
		if b != result.SLOWALFsyncP99 && b != result.SLOCommitP99 && b != result.SLODBQuota {
			return false
		}
	}
	return len(broke) > 0
}
