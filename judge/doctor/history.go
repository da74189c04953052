package doctor

import (
	"fmt"
	"net/url"
	"time"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// history is step 8: what Prometheus recorded over the range, per member.
// The worst WAL fsync and backend commit p99, peer round trip and leader
// changes back the findings of the same cause and member, or become
// findings of their own: the range covers the incident, the window only
// the present.
func (j *doctorJudge) history() result.DoctorStep {
	st := result.DoctorStep{Name: "history"}
	h := j.d.History
	if h == nil {
		return st
	}
	st.Unseen = append(st.Unseen, h.Unseen...)
	span := units.Seconds(h.EndUnix - h.StartUnix)
	for _, in := range h.Instances {
		name := j.memberAt(in.Instance)
		for _, c := range []struct {
			id    judge.ID
			v     float64
			cause Cause
		}{{judge.ServerWALFsyncP99, in.WALFsyncP99Max, CauseDisk}, {judge.ServerBackendCommitP99, in.BackendCommitP99Max, CauseDisk}, {judge.ServerPeerRTTP99, in.PeerRTTP99Max, CauseNetwork}} {
			if c.v <= 0 {
				continue
			}
			v := check(c.id, name, c.v, func(x float64) string { return units.Quantile(x, result.LowestDiskBucket) })
			v.What += ", worst " + h.RateWindow + " over the last " + span + " (Prometheus)"
			st.Checks = append(st.Checks, v)
			if v.Status != result.Fail {
				continue
			}
			t, _ := judge.Lookup(c.id)
			ev := fmt.Sprintf("Prometheus: %s reached %s on %s over the last %s (%s)", t.What, v.Display, name, span, v.Threshold)
			if c.id == judge.ServerWALFsyncP99 && in.WorstAtUnix > 0 {
				ev += ", worst at " + time.Unix(int64(in.WorstAtUnix), 0).UTC().Format(time.RFC3339)
			}
			member := name
			if c.cause == CauseNetwork {
				member = ""
			}
			if f := j.findingOf(c.cause, member); f != nil {
				f.Evidence = append(f.Evidence, ev)
				f.Score += scoreBacked.v()
				continue
			}
			j.find(result.Finding{Status: result.Warn, Cause: string(c.cause), Member: member, Score: scoreAtThreshold.v() + min(scoreHistoryMore.v(), c.v/t.Fail/scoreHistoryPer.v()),
				Summary:  fmt.Sprintf("in the last %s, %s on %s reached %s (now within bounds)", span, t.What, name, v.Display),
				Evidence: []string{ev}, Fix: t.Advice, Source: t.Source + "; Prometheus history", Versions: nonEmpty(in.Version)})
		}
		lc := check(judge.ServerLeaderChanges, name, in.LeaderChanges, units.Count)
		lc.What += " over the last " + span + " (Prometheus)"
		st.Checks = append(st.Checks, lc)
		if lc.Status == result.Fail && j.findingOf(CauseLeader, "") == nil {
			j.find(result.Finding{Status: result.Warn, Cause: string(CauseLeader), Score: scoreHistoryLeader.v(),
				Summary:  fmt.Sprintf("%s saw the leader change %.0f times in the last %s", name, in.LeaderChanges, span),
				Evidence: []string{lc.What + " " + lc.Display}, Fix: lc.Explanation, Source: lc.Source + "; Prometheus history"})
		}
	}
	return st
}

// memberAt names the member whose metrics Prometheus scraped at instance
// (host:port), or returns instance.
func (j *doctorJudge) memberAt(instance string) string {
	for _, m := range j.d.Members {
		for _, raw := range []string{m.MetricsURL, m.Endpoint} {
			if u, err := url.Parse(raw); err == nil && u.Host == instance {
				return m.Name
			}
		}
	}
	return instance
}

func nonEmpty(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}
