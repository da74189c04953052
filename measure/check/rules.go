package check

import (
	"fmt"
	"math"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// serverVerdicts judges the members' metrics: for each metric, the worst
// member. A metric no member could report is a SKIP saying why. It is a
// pure function of the recorded numbers, so it is tested without a slow
// disk.
//
// peerRTT says whether to judge the peer round trip (not for a local
// cluster, whose peers talk over loopback).
func serverVerdicts(ms []result.MemberCheck, peerRTT bool) []result.Verdict {
	var ok []result.MemberCheck
	var why []string
	for _, m := range ms {
		if m.Error != "" {
			why = append(why, m.Error)
			continue
		}
		ok = append(ok, m)
	}
	if len(ok) == 0 {
		reason := "no member's metrics could be read"
		if len(why) > 0 {
			reason = why[0]
		}
		var out []result.Verdict
		for _, id := range []judge.ID{judge.ServerWALFsyncP99, judge.ServerBackendCommitP99} {
			out = append(out, judge.Unmeasured(id, reason))
		}
		return out
	}
	worst := func(f func(result.MemberCheck) float64) (float64, string) {
		v, who := math.NaN(), ""
		for _, m := range ok {
			x := f(m)
			if !math.IsNaN(x) && (math.IsNaN(v) || x > v) {
				v, who = x, m.Name
			}
		}
		return v, who
	}
	secs := func(id judge.ID, f func(result.MemberCheck) float64, none string) result.Verdict {
		v, who := worst(f)
		if math.IsNaN(v) || v == 0 {
			return judge.Unmeasured(id, none)
		}
		out := judge.Value(id, v, units.Seconds)
		out.What += " (worst: " + who + ")"
		return out
	}
	count := func(id judge.ID, f func(result.MemberCheck) float64) result.Verdict {
		v, who := worst(f)
		out := judge.Value(id, v, units.Count)
		if v > 0 {
			out.What += " (most: " + who + ")"
		}
		return out
	}
	vs := []result.Verdict{
		secs(judge.ServerWALFsyncP99, func(m result.MemberCheck) float64 { return m.WalFsyncP99 }, "no WAL fsync was observed during the check"),
		secs(judge.ServerBackendCommitP99, func(m result.MemberCheck) float64 { return m.BackendCommitP99 }, "no backend commit was observed during the check"),
	}
	if len(ok) > 1 && peerRTT {
		vs = append(vs, secs(judge.ServerPeerRTTP99, func(m result.MemberCheck) float64 {
			if m.PeerRTTSamples == 0 {
				return math.NaN()
			}
			return m.PeerRTTP99
		}, "etcd observes its peer RTT every 30 s; the check was too short to see one"))
	}
	vs = append(vs,
		count(judge.ServerLeaderChanges, func(m result.MemberCheck) float64 { return m.LeaderChanges }),
		count(judge.ServerSlowApplies, func(m result.MemberCheck) float64 { return m.SlowApplies }),
		count(judge.ServerProposalsFailed, func(m result.MemberCheck) float64 { return m.ProposalsFailed }),
		count(judge.ServerHeartbeatFailures, func(m result.MemberCheck) float64 { return m.HeartbeatFailures }),
	)
	if len(why) > 0 {
		vs = append(vs, result.Verdict{ID: string(judge.ServerMetrics), What: "members' metrics", Status: result.Warn, Display: fmt.Sprintf("%d of %d read", len(ok), len(ms)),
			Explanation: "could not read every member's metrics: " + why[0]})
	}
	return vs
}

// connectVerdict judges the slowest member's TCP connect time.
func connectVerdict(cs []result.Connect) result.Verdict {
	v, who := -1.0, ""
	for _, c := range cs {
		if c.Error == "" && c.Seconds > v {
			v, who = c.Seconds, c.Endpoint
		}
	}
	if v < 0 {
		reason := "no member accepted a connection"
		if len(cs) > 0 {
			reason = cs[0].Error
		}
		return judge.Unmeasured(judge.NetworkConnect, reason)
	}
	out := judge.Value(judge.NetworkConnect, v, units.Seconds)
	out.What += " (slowest: " + who + ")"
	return out
}
