package size

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// Sources of the SLOs a probe is judged by.
const (
	srcMutating = "Kubernetes SLO: mutating API calls p99 ≤ 1 s over 5 min (kubernetes/community sig-scalability/slos/api_call_latency.md); " +
		"etcdlab judges etcd's own write latency against the whole 1 s: a bound that is a bound (an etcd write over it breaks the API call's SLO whatever the apiserver adds), not etcd's share of it, which nobody publishes"
	srcQuota = "etcd quota (--quota-backend-bytes, 2 GiB default; 8 GiB suggested maximum, etcd limits page); OpenShift and the etcd mixin alert at 80% (etcdBackendQuotaLowSpace)"
	srcCPU   = "etcdlab's saturation rule (judge: the share of the cores from which CPU limits throughput): past it a member queues. " +
		"On a budget scaled down in the lab a request's CPU time is stretched by the quota's slices, which a candidate's member on cores of its own is not, " +
		"so latency near saturation is the lab's, not the candidate's; the share of the budget used is the candidate's (docs/sizing.md, \"Method\")"
	srcRate = "an open-loop load must be carried: the cluster answered at least 90% of the requests asked per second, without errors (etcdlab)"
)

// quotaShare is the share of the quota the projected database may reach.
const quotaShare = 0.80

// errorShare is the share of failed requests a probe may have.
const errorShare = 0.001

// SLOs returns the objectives every probe is judged by, with sources.
func SLOs() []result.SizeSLO {
	th := func(id judge.ID) string {
		t, _ := judge.Lookup(id)
		return t.Source
	}
	return []result.SizeSLO{
		{Name: result.SLOMutatingP99, Limit: 1, Unit: "s", Source: srcMutating},
		{Name: result.SLOWALFsyncP99, Limit: judge.LimitWALFsyncP99.Value(), Unit: "s", Source: th(judge.ServerWALFsyncP99)},
		{Name: result.SLOCommitP99, Limit: judge.LimitBackendCommitP99.Value(), Unit: "s", Source: th(judge.ServerBackendCommitP99)},
		{Name: result.SLOLeader, Limit: 0, Unit: "count", Source: th(judge.ServerLeaderChanges)},
		{Name: result.SLOSlowApplies, Limit: 0, Unit: "count", Source: th(judge.ServerSlowApplies)},
		{Name: result.SLODBQuota, Limit: quotaShare, Unit: "share", Source: srcQuota},
		{Name: result.SLORate, Limit: 0.9, Unit: "share", Source: srcRate},
		{Name: result.SLOMemberCPU, Limit: judge.LimitCPUSaturated.Value(), Unit: "share", Source: srcCPU},
	}
}

// mutating says whether a replay operation changes the store.
func mutating(op string) bool { return op == "put" || op == "txn" || op == "delete" }

// judgeCell turns a probe's cell into its figures and verdict. share
// projects the busiest member's CPU in the lab (cores) to a share of the
// candidate's cores; dbShare is the projected database's share of the
// quota at this probe's size.
func judgeCell(cell *result.Cell, share func(cores float64) float64, dbShare float64) result.SizeProbe {
	var p result.SizeProbe
	if len(cell.Runs) == 0 {
		p.Inconclusive = "the probe measured no run"
		return p
	}
	run := cell.Runs[len(cell.Runs)-1]
	for _, o := range run.Ops {
		if mutating(o.Name) && o.Requests > 0 {
			p.MutatingP99 = max(p.MutatingP99, o.Latency.P99)
		}
	}
	if run.Server != nil {
		for _, m := range run.Server.Members {
			s := m.Summary
			p.WALFsyncP99 = max(p.WALFsyncP99, s.WALFsyncP99)
			p.CommitP99 = max(p.CommitP99, s.BackendCommitP99)
			p.LeaderChanges = max(p.LeaderChanges, s.LeaderChanges)
			p.SlowApplies = max(p.SlowApplies, s.SlowApplies)
			p.MemberCPU = max(p.MemberCPU, s.CPUCoresMean)
			p.DBBytes = max(p.DBBytes, s.DBSizeBytes)
		}
	}
	if share != nil && p.MemberCPU > 0 {
		p.CPUShare = share(p.MemberCPU)
	}
	if cell.Bottleneck != nil {
		p.Bottleneck = cell.Bottleneck.Statement
	}
	p.RateGot = run.ThroughputRPS
	if run.Replay != nil && run.DurationSeconds > 0 {
		p.RateGot = float64(run.Requests+run.ErrorCount()) / run.DurationSeconds
	}
	limits := map[string]float64{}
	for _, s := range SLOs() {
		limits[s.Name] = s.Limit
	}
	type broke struct {
		name  string
		share float64 // how far past its limit
	}
	var bs []broke
	over := func(name string, v float64) {
		if l := limits[name]; v > l {
			share := v / l
			if l == 0 {
				share = 1 + v
			}
			bs = append(bs, broke{name, share})
		}
	}
	over(result.SLOMutatingP99, p.MutatingP99)
	over(result.SLOWALFsyncP99, p.WALFsyncP99)
	over(result.SLOCommitP99, p.CommitP99)
	over(result.SLOLeader, p.LeaderChanges)
	over(result.SLOSlowApplies, p.SlowApplies)
	over(result.SLODBQuota, dbShare)
	over(result.SLOMemberCPU, p.CPUShare)
	reach := ""
	if run.Replay != nil {
		reach = run.Replay.Reach
	}
	failed := float64(run.ErrorCount())
	switch {
	case strings.Contains(reach, "generator limit"), strings.Contains(reach, "machine is shared"):
		p.Inconclusive = reach
	case reach != "":
		bs = append(bs, broke{result.SLORate, 2})
		p.Bottleneck = strings.TrimSpace(reach + "; " + p.Bottleneck)
	case failed > errorShare*float64(run.Requests+run.ErrorCount()):
		bs = append(bs, broke{result.SLORate, 1.5})
		p.Bottleneck = strings.TrimSpace(fmt.Sprintf("%.0f requests failed; %s", failed, p.Bottleneck))
	}
	slices.SortStableFunc(bs, func(a, b broke) int { return cmp.Compare(b.share, a.share) })
	for _, b := range bs {
		p.Broke = append(p.Broke, b.name)
	}
	p.Holds = len(p.Broke) == 0 && p.Inconclusive == ""
	return p
}
