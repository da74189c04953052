package doctor

import (
	"context"
	"crypto/tls"
	"maps"
	"math"
	"slices"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// scrape is one member's scrape, or why there is none.
type scrape struct {
	snap *metrics.Snapshot
	err  error
}

// scrapeAll scrapes every URL at once.
func scrapeAll(ctx context.Context, urls []string, tlsCfg *tls.Config) []scrape {
	snaps, errs := metrics.ScrapeAll(ctx, urls, tlsCfg, requestTimeout)
	out := make([]scrape, len(urls))
	for i := range out {
		out[i] = scrape{snap: snaps[i], err: errs[i]}
	}
	return out
}

// windowMetrics is what a member's metrics say between two scrapes, as
// PromQL would over the window: increase() of counters, quantiles over
// bucket deltas, gauges at the end. A histogram without observations in
// the window (an idle member's WAL, the peer round trip probed every few
// seconds) is read since the member started, and marked so.
func windowMetrics(b, a *metrics.Snapshot) *result.DoctorMetrics {
	secs := a.At.Sub(b.At).Seconds()
	m := &result.DoctorMetrics{}
	if cpu, ok := metrics.Increase(b, a, metrics.ProcessCPUSeconds); ok && secs > 0 {
		m.CPUCores = cpu / secs
	}
	m.RSSBytes, _ = a.Gauge(metrics.ProcessResidentMemory)
	m.Goroutines, _ = a.Gauge(metrics.Goroutines)
	var n float64
	m.WALFsyncP99, n, m.WALFsyncSinceStart = quantile(0.99, b, a, metrics.WALFsyncDuration)
	m.WALFsyncP999, _, _ = quantile(0.999, b, a, metrics.WALFsyncDuration)
	m.WALFsyncP50, _, _ = quantile(0.5, b, a, metrics.WALFsyncDuration)
	if !m.WALFsyncSinceStart {
		m.WALFsyncs = n
	} else if w, ok := metrics.Deltas(b, a, metrics.WALFsyncDuration); ok {
		m.WALFsyncs = w[math.Inf(1)]
	}
	m.WALFsyncMedianFloor, m.WALFsyncMedianN, m.WALFsyncMedianSinceStart = medianFloor(b, a, metrics.WALFsyncDuration)
	m.CommitP99, _, m.CommitSinceStart = quantile(0.99, b, a, metrics.BackendCommitDuration)
	m.PeerRTTP99, _, m.PeerRTTSinceStart = quantile(0.99, b, a, metrics.PeerRoundTripTime)
	m.SlowApplies, _ = metrics.Increase(b, a, metrics.SlowApplies)
	m.SlowReadIndexes, _ = metrics.Increase(b, a, metrics.SlowReadIndexes)
	m.HeartbeatFailures, _ = metrics.Increase(b, a, metrics.HeartbeatSendFailures)
	m.PeerSendFailures, _ = metrics.Increase(b, a, metrics.PeerSentFailures)
	m.LeaderChanges, _ = metrics.Increase(b, a, metrics.LeaderChanges)
	m.ProposalsFailed, _ = metrics.Increase(b, a, metrics.ProposalsFailed)
	m.ProposalsPending, _ = a.Gauge(metrics.ProposalsPending)
	for code, v := range metrics.IncreaseBy(b, a, metrics.GRPCHandled, metrics.GRPCCodeLabel, map[string]string{metrics.GRPCTypeLabel: "unary"}) {
		m.GRPCRequests += v
		if grpcError(code) {
			m.GRPCErrors += v
		}
	}
	for method, qn := range metrics.QuantilesBy(0.99, b, a, metrics.GRPCHandling, metrics.GRPCMethodLabel, map[string]string{metrics.GRPCTypeLabel: "unary"}) {
		if qn[1] >= judge.LimitQuantileP99Min.Value() {
			if m.GRPCUnaryP99 == nil {
				m.GRPCUnaryP99 = map[string]float64{}
			}
			m.GRPCUnaryP99[method] = qn[0]
		}
	}
	m.ClientSentBytes, _ = metrics.Increase(b, a, metrics.ClientGRPCSent)
	m.Ranges = metrics.IncreaseBy(b, a, metrics.GRPCHandled, metrics.GRPCMethodLabel, map[string]string{metrics.GRPCTypeLabel: "unary"})["Range"]
	db, _ := b.Gauge(metrics.DefragInflight)
	da, _ := a.Gauge(metrics.DefragInflight)
	m.Defragmenting = db > 0 || da > 0
	maintenance(m, b, a)
	hl, _ := a.Gauge(metrics.HasLeader)
	m.HasLeader = hl == 1
	return m
}

// maintenance fills what the member's metrics say of a compaction, a
// snapshot sent or received, a restart and its past defragmentations.
func maintenance(m *result.DoctorMetrics, b, a *metrics.Snapshot) {
	if d, ok := metrics.Deltas(b, a, metrics.CompactionPause); ok {
		m.CompactionBatches = d[math.Inf(1)]
	}
	if s, ok := metrics.SumIncrease(b, a, metrics.CompactionPause); ok {
		m.CompactionPauseSeconds = s / 1000
	}
	if d, ok := metrics.Deltas(b, a, metrics.CompactionTotal); ok {
		m.CompactionsFinished = d[math.Inf(1)]
	}
	if s, ok := metrics.SumIncrease(b, a, metrics.CompactionTotal); ok {
		m.CompactionSeconds = s / 1000
	}
	m.CompactionKeys, _ = metrics.Increase(b, a, metrics.CompactionKeys)
	m.CompactRevisionBefore, _ = b.Gauge(metrics.CompactRevision)
	m.CompactRevisionAfter, _ = a.Gauge(metrics.CompactRevision)
	m.Compacting = m.CompactionsFinished == 0 && (m.CompactionBatches > 0 || m.CompactRevisionAfter > m.CompactRevisionBefore)
	to := map[string]bool{}
	for _, s := range []*metrics.Snapshot{b, a} {
		for peer, v := range s.SumBy(metrics.SnapshotSendInflights, metrics.SnapshotPeerLabel, nil) {
			if v > 0 {
				to[peer] = true
			}
		}
	}
	for peer := range metrics.IncreaseBy(b, a, metrics.SnapshotSendSuccess, metrics.SnapshotPeerLabel, nil) {
		to[peer] = true
	}
	m.SnapshotSendTo = slices.Sorted(maps.Keys(to))
	rb, _ := b.Gauge(metrics.SnapshotReceiveInflights)
	ra, _ := a.Gauge(metrics.SnapshotReceiveInflights)
	got, _ := metrics.Increase(b, a, metrics.SnapshotReceiveSuccess)
	m.SnapshotReceiving = rb > 0 || ra > 0 || got > 0
	pb, _ := b.Gauge(metrics.SnapshotApplyInProgress)
	pa, _ := a.Gauge(metrics.SnapshotApplyInProgress)
	m.SnapshotApplying = pb > 0 || pa > 0
	if d, ok := metrics.Deltas(nil, a, metrics.DefragDuration); ok {
		m.Defrags = d[math.Inf(1)]
	}
	m.DefragSeconds, _ = metrics.SumIncrease(nil, a, metrics.DefragDuration)
}

// grpcError says whether a gRPC code is the server failing rather than the
// client's own choice (a cancelled call, a missing key).
func grpcError(code string) bool {
	switch code {
	case "OK", "Canceled", "NotFound", "InvalidArgument", "AlreadyExists", "FailedPrecondition":
		return false
	}
	return true
}

// quantile is the q-quantile of name over the window and the number of
// observations in it; with too few, the quantile since the member started
// (sinceStart), and with too few of those too, 0 (not judged). Never NaN.
// A quantile needs the observations it can rest on (needs): a median
// about 10, a p99 about 100, a p99.9 about 1,000 (judge's limits); a
// fresh member's few bootstrap fsyncs are no p99, and neither is a quiet
// window's handful (medianFloor judges those).
func quantile(q float64, b, a *metrics.Snapshot, name metrics.Name) (v, n float64, sinceStart bool) {
	need := needs(q)
	v, n = metrics.Quantile(q, b, a, name)
	if n >= need && !math.IsNaN(v) {
		return v, n, false
	}
	cum, ok := metrics.Deltas(nil, a, name)
	if !ok || cum[math.Inf(1)] < need {
		return 0, n, false
	}
	return metrics.UpperQuantile(q, cum), cum[math.Inf(1)], true
}

// needs is how many observations a q-quantile rests on: about 1/(1-q),
// from judge's limits.
func needs(q float64) float64 {
	switch {
	case q <= 0.5:
		return judge.LimitMedianMin.Value()
	case q <= 0.99:
		return judge.LimitQuantileP99Min.Value()
	}
	return judge.LimitQuantileP999Min.Value()
}

// medianFloor is a lower bound of name's median: the lower edge of the
// bucket holding the middle observation (never above the median, unlike
// an interpolated quantile), with the number of observations it rests
// on, over the window when it has judge's LimitMedianMin, else since the
// member started (sinceStart); 0 and the window's count with fewer.
func medianFloor(b, a *metrics.Snapshot, name metrics.Name) (floor, n float64, sinceStart bool) {
	need := judge.LimitMedianMin.Value()
	w, ok := metrics.Deltas(b, a, name)
	if ok && w[math.Inf(1)] >= need {
		lower, _, _ := metrics.RankBucket(math.Ceil(w[math.Inf(1)]/2), w)
		return max(lower, 0), w[math.Inf(1)], false
	}
	if ok {
		n = w[math.Inf(1)]
	}
	cum, ok := metrics.Deltas(nil, a, name)
	if !ok || cum[math.Inf(1)] < need {
		return 0, n, false
	}
	lower, _, _ := metrics.RankBucket(math.Ceil(cum[math.Inf(1)]/2), cum)
	return max(lower, 0), cum[math.Inf(1)], true
}

// uptime is how long the member process had run at scrape a (0: not
// known).
func uptime(a *metrics.Snapshot) float64 {
	if start, ok := a.Gauge(metrics.ProcessStartTime); ok && start > 0 {
		return max(float64(a.At.UnixNano())/1e9-start, 0)
	}
	return 0
}

// serverVersion is the etcd version a member's metrics report.
func serverVersion(s *metrics.Snapshot) string {
	if vs := s.LabelValues(metrics.ServerVersion, metrics.ServerVersionLabel); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// quotaOf is the member's backend quota in bytes.
func quotaOf(s *metrics.Snapshot) (float64, bool) {
	return s.Gauge(metrics.QuotaBackendBytes)
}
