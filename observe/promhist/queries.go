package promhist

import (
	"fmt"

	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// vec is a vector selector of name with the extra matchers sel.
func vec(name metrics.Name, sel string) string {
	if sel == "" {
		return string(name)
	}
	return string(name) + "{" + sel + "}"
}

// instancesExpr finds the etcd members Prometheus has series of in the
// range: only etcd exposes etcd_server_has_leader.
func instancesExpr(s settings) string {
	return fmt.Sprintf("max by (instance) (max_over_time(%s[%s]))", vec(metrics.HasLeader, s.sel), s.since)
}

// p99Expr is a histogram's p99 per member over each rate window (summed
// over its other labels, such as the peer of a round trip).
func p99Expr(name metrics.Name, s settings) string {
	return fmt.Sprintf("histogram_quantile(0.99, sum by (instance, le) (rate(%s[%s])))", vec(name+"_bucket", s.sel), s.window)
}

// versionExpr is each member's version, as a label of a gauge set to 1
// (etcd 3.4 and later).
func versionExpr(s settings) string {
	return fmt.Sprintf("max by (instance, %s) (%s)", metrics.ServerVersionLabel, vec(metrics.ServerVersion, s.sel))
}

// rangeFigure is one figure read from a range query: the largest value of
// each member's series (or the latest, with last).
type rangeFigure struct {
	what string // for Unseen: "WAL fsync p99"
	expr string
	// hint explains a member without a value.
	hint string
	last bool
	// floor is the upper bound of a histogram's lowest bucket: a quantile
	// below it (PromQL's interpolation from 0) becomes the bound, as
	// everywhere in etcdlab (see result.LowestDiskBucket).
	floor float64
	set   func(h *result.InstanceHistory, v, atUnix float64)
}

// rangeFigures are the figures of range queries.
func rangeFigures(s settings) []rangeFigure {
	const noObs = "nothing observed in any window"
	return []rangeFigure{
		{what: "WAL fsync p99", expr: p99Expr(metrics.WALFsyncDuration, s), hint: noObs, floor: result.LowestDiskBucket,
			set: func(h *result.InstanceHistory, v, at float64) { h.WALFsyncP99Max, h.WorstAtUnix = v, at }},
		{what: "backend commit p99", expr: p99Expr(metrics.BackendCommitDuration, s), hint: noObs, floor: result.LowestDiskBucket,
			set: func(h *result.InstanceHistory, v, _ float64) { h.BackendCommitP99Max = v }},
		{what: "peer round trip p99", expr: p99Expr(metrics.PeerRoundTripTime, s), floor: result.LowestPeerRTTBucket,
			hint: "nothing observed in any window (etcd times a round trip every 30 s, only with peers, and rate() cannot see the first)",
			set:  func(h *result.InstanceHistory, v, _ float64) { h.PeerRTTP99Max = v }},
		// process_cpu_seconds_total is every Go program's: keep etcd's.
		{what: "CPU", expr: fmt.Sprintf("max by (instance) (rate(%s[%s])) and on (instance) max by (instance) (%s)",
			vec(metrics.ProcessCPUSeconds, s.sel), s.window, vec(metrics.HasLeader, s.sel)),
			hint: "no process_cpu_seconds_total in the range",
			set:  func(h *result.InstanceHistory, v, _ float64) { h.CPUCoresMax = v }},
		// etcd 3.3 and earlier name the database size differently.
		{what: "database size", expr: fmt.Sprintf("max by (instance) (%s or %s)",
			vec(metrics.DBTotalSize, s.sel), vec(metrics.OldDBTotalSize, s.sel)),
			hint: "no database size gauge in the range",
			set:  func(h *result.InstanceHistory, v, _ float64) { h.DBSizeMax = v }},
		{what: "quota", expr: fmt.Sprintf("max by (instance) (%s)", vec(metrics.QuotaBackendBytes, s.sel)),
			hint: "no etcd_server_quota_backend_bytes (etcd 3.4 and later have it)", last: true,
			set: func(h *result.InstanceHistory, v, _ float64) { h.QuotaBytes = v }},
	}
}

// counterFigure is one counter's increase over the whole range, from an
// instant query at its end.
type counterFigure struct {
	what string
	expr string
	set  func(h *result.InstanceHistory, v float64)
}

// counterFigures are the counters' increases. max by instance keeps one
// series of a member scraped by two jobs.
func counterFigures(s settings) []counterFigure {
	inc := func(name metrics.Name) string {
		return fmt.Sprintf("max by (instance) (increase(%s[%s]))", vec(name, s.sel), s.since)
	}
	return []counterFigure{
		{"leader changes", inc(metrics.LeaderChanges), func(h *result.InstanceHistory, v float64) { h.LeaderChanges = v }},
		{"slow applies", inc(metrics.SlowApplies), func(h *result.InstanceHistory, v float64) { h.SlowApplies = v }},
		{"heartbeat send failures", inc(metrics.HeartbeatSendFailures), func(h *result.InstanceHistory, v float64) { h.HeartbeatFailures = v }},
		{"failed proposals", inc(metrics.ProposalsFailed), func(h *result.InstanceHistory, v float64) { h.ProposalsFailed = v }},
	}
}
