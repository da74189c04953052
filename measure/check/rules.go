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
	skip := func(id, reason string) result.Verdict {
		t := judge.Thresholds[id]
		return result.Verdict{ID: id, What: t.What, Source: t.Source, Status: result.Skip, Display: "-", Explanation: "could not measure: " + reason}
	}
	if len(ok) == 0 {
		reason := "no member's metrics could be read"
		if len(why) > 0 {
			reason = why[0]
		}
		var out []result.Verdict
		for _, id := range []string{"server.wal_fsync.p99", "server.backend_commit.p99"} {
			out = append(out, skip(id, reason))
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
	secs := func(id string, f func(result.MemberCheck) float64, none string) result.Verdict {
		v, who := worst(f)
		if math.IsNaN(v) || v == 0 {
			return skip(id, none)
		}
		out := judge.Judge(id, v, units.Seconds)
		out.What += " (worst: " + who + ")"
		return out
	}
	count := func(id string, f func(result.MemberCheck) float64) result.Verdict {
		v, who := worst(f)
		out := judge.Judge(id, v, units.Count)
		if v > 0 {
			out.What += " (most: " + who + ")"
		}
		return out
	}
	vs := []result.Verdict{
		secs("server.wal_fsync.p99", func(m result.MemberCheck) float64 { return m.WalFsyncP99 }, "no WAL fsync was observed during the check"),
		secs("server.backend_commit.p99", func(m result.MemberCheck) float64 { return m.BackendCommitP99 }, "no backend commit was observed during the check"),
	}
	if len(ok) > 1 && peerRTT {
		vs = append(vs, secs("server.peer_rtt.p99", func(m result.MemberCheck) float64 {
			if m.PeerRTTSamples == 0 {
				return math.NaN()
			}
			return m.PeerRTTP99
		}, "etcd observes its peer RTT every 30 s; the check was too short to see one"))
	}
	vs = append(vs,
		count("server.leader_changes", func(m result.MemberCheck) float64 { return m.LeaderChanges }),
		count("server.slow_applies", func(m result.MemberCheck) float64 { return m.SlowApplies }),
		count("server.proposals_failed", func(m result.MemberCheck) float64 { return m.ProposalsFailed }),
		count("server.heartbeat_failures", func(m result.MemberCheck) float64 { return m.HeartbeatFailures }),
	)
	if len(why) > 0 {
		vs = append(vs, result.Verdict{ID: "server.metrics", What: "members' metrics", Status: result.Warn, Display: fmt.Sprintf("%d of %d read", len(ok), len(ms)),
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
		t := judge.Thresholds["network.connect"]
		reason := "no member accepted a connection"
		if len(cs) > 0 {
			reason = cs[0].Error
		}
		return result.Verdict{ID: t.ID, What: t.What, Source: t.Source, Status: result.Skip, Display: "-", Explanation: "could not measure: " + reason}
	}
	out := judge.Judge("network.connect", v, units.Seconds)
	out.What += " (slowest: " + who + ")"
	return out
}
