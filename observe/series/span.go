package series

import (
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// span is what one member did over one scrape interval, or over several
// merged: the raw material of a result.ServerPoint, kept raw (bucket
// counts, counter increases, seconds) so that merging two spans is exact.
type span struct {
	end     time.Time // the closing scrape
	seconds float64   // between the opening and the closing scrape
	n       int       // intervals merged into it

	fsync, commit, rtt hist
	fsyncSeconds       float64 // the WAL fsyncs' time together (the histogram's _sum)

	leaderChanges, slowApplies, slowReadIndexes, proposalsFailed float64
	grpc, grpcErrors                                             float64 // unary RPCs finished, and those not OK
	cpuSeconds                                                   float64
	cpuMax                                                       float64 // the highest mean cores of its intervals at least half an interval long (0: none)
	rxBytes, txBytes                                             float64

	// Gauges, as the closing scrape read them; merged: the later one,
	// except pendingMax and rssMax (the highest) and hasLeader (false if
	// either was).
	hasLeader, isLeader bool
	noLeaderSeconds     float64 // intervals closed by a scrape that found no leader
	pendingMax, rssMax  float64
	dbSize, dbInUse     float64

	io *ioDelta // nil: no /proc figures for this span
}

// ioDelta is what /proc/PID/io counted over seconds.
type ioDelta struct {
	seconds, readBytes, writeBytes float64
}

// derive computes the span between two scrapes of one member; a nil
// before is the member's process start (it restarted in between), opened
// is when the previous scrape was taken either way.
func derive(before, after *metrics.Snapshot, opened time.Time, interval time.Duration) span {
	sp := span{end: after.At, seconds: after.At.Sub(opened).Seconds(), n: 1}
	h := func(name metrics.Name) hist {
		if d, ok := metrics.Deltas(sinceFamily(before, name), after, name); ok {
			return histOf(d)
		}
		return hist{}
	}
	inc := func(name metrics.Name) float64 {
		v, _ := metrics.Increase(sinceFamily(before, name), after, name)
		return v
	}
	gauge := func(names ...metrics.Name) float64 {
		v, _ := after.FirstGauge(names...)
		return v
	}
	sp.fsync, sp.commit, sp.rtt = h(metrics.WALFsyncDuration), h(metrics.BackendCommitDuration), h(metrics.PeerRoundTripTime)
	sp.fsyncSeconds, _ = metrics.SumIncrease(sinceFamily(before, metrics.WALFsyncDuration), after, metrics.WALFsyncDuration)
	sp.leaderChanges, sp.slowApplies = inc(metrics.LeaderChanges), inc(metrics.SlowApplies)
	sp.slowReadIndexes, sp.proposalsFailed = inc(metrics.SlowReadIndexes), inc(metrics.ProposalsFailed)
	sp.cpuSeconds = inc(metrics.ProcessCPUSeconds)
	if sp.seconds >= interval.Seconds()/2 { // shorter: too noisy for the highest interval
		sp.cpuMax = sp.cpuSeconds / sp.seconds
	}
	sp.rxBytes = inc(metrics.ClientGRPCReceived) + inc(metrics.PeerReceived)
	sp.txBytes = inc(metrics.ClientGRPCSent) + inc(metrics.PeerSent)
	sp.hasLeader, sp.isLeader = gauge(metrics.HasLeader) == 1, gauge(metrics.IsLeader) == 1
	if !sp.hasLeader {
		sp.noLeaderSeconds = min(sp.seconds, interval.Seconds())
	}
	sp.pendingMax, sp.rssMax = gauge(metrics.ProposalsPending), gauge(metrics.ProcessResidentMemory)
	sp.dbSize, sp.dbInUse = gauge(metrics.DBTotalSize, metrics.OldDBTotalSize), gauge(metrics.DBInUse, metrics.OldDBInUse)
	return sp
}

// sinceFamily is before, or nil (the process's start) when before has no
// name at all: a labelled family (a histogram per peer, say) appears with
// its first observation, so everything after has of it is new.
func sinceFamily(before *metrics.Snapshot, name metrics.Name) *metrics.Snapshot {
	if before != nil && before.Families[string(name)] == nil {
		return nil
	}
	return before
}

// grpcCodes returns the unary RPCs that finished between two scrapes, by
// gRPC code (a nil before: since the process started).
func grpcCodes(before, after *metrics.Snapshot) map[string]float64 {
	return metrics.IncreaseBy(before, after, metrics.GRPCHandled, metrics.GRPCCodeLabel, map[string]string{metrics.GRPCTypeLabel: "unary"})
}

// merge returns a followed by b (b ends later) as one span.
func merge(a, b span) span {
	m := b
	m.seconds, m.n = a.seconds+b.seconds, a.n+b.n
	m.fsync, m.commit, m.rtt = a.fsync.add(b.fsync), a.commit.add(b.commit), a.rtt.add(b.rtt)
	m.fsyncSeconds += a.fsyncSeconds
	m.leaderChanges += a.leaderChanges
	m.slowApplies += a.slowApplies
	m.slowReadIndexes += a.slowReadIndexes
	m.proposalsFailed += a.proposalsFailed
	m.grpc += a.grpc
	m.grpcErrors += a.grpcErrors
	m.cpuSeconds += a.cpuSeconds
	m.cpuMax = max(a.cpuMax, b.cpuMax)
	m.rxBytes += a.rxBytes
	m.txBytes += a.txBytes
	m.hasLeader = a.hasLeader && b.hasLeader
	m.noLeaderSeconds += a.noLeaderSeconds
	m.pendingMax, m.rssMax = max(a.pendingMax, b.pendingMax), max(a.rssMax, b.rssMax)
	switch {
	case a.io == nil:
	case b.io == nil:
		m.io = a.io
	default:
		m.io = &ioDelta{seconds: a.io.seconds + b.io.seconds, readBytes: a.io.readBytes + b.io.readBytes, writeBytes: a.io.writeBytes + b.io.writeBytes}
	}
	return m
}

// halve merges spans pairwise (the first with the second, the third with
// the fourth...); an odd last one stays as it is.
func halve(spans []span) []span {
	out := spans[:0]
	for i := 0; i < len(spans); i += 2 {
		if i+1 < len(spans) {
			out = append(out, merge(spans[i], spans[i+1]))
		} else {
			out = append(out, spans[i])
		}
	}
	return out
}

// point is the span as a result.ServerPoint: quantiles in seconds, rates
// per second of the span.
func (sp span) point() result.ServerPoint {
	per := func(v float64) float64 {
		if sp.seconds <= 0 {
			return 0
		}
		return v / sp.seconds
	}
	p := result.ServerPoint{
		UnixMillis: sp.end.UnixMilli(), WALFsyncP50: sp.fsync.quantile(0.5), WALFsyncP99: sp.fsync.quantile(0.99),
		BackendCommitP99: sp.commit.quantile(0.99), PeerRTTP99: sp.rtt.quantile(0.99),
		HasLeader: sp.hasLeader, IsLeader: sp.isLeader, LeaderChanges: sp.leaderChanges, SlowApplies: sp.slowApplies,
		ProposalsPending: sp.pendingMax, ProposalsFailed: sp.proposalsFailed,
		GRPCPerSecond: per(sp.grpc), GRPCErrorsPerSec: per(sp.grpcErrors),
		DBSizeBytes: sp.dbSize, DBInUseBytes: sp.dbInUse, CPUCores: per(sp.cpuSeconds), RSSBytes: sp.rssMax,
		NetReceivePerS: per(sp.rxBytes), NetSendPerS: per(sp.txBytes),
	}
	if sp.io != nil && sp.io.seconds > 0 {
		p.DiskReadBytesPerS, p.DiskWriteBytesPerS = sp.io.readBytes/sp.io.seconds, sp.io.writeBytes/sp.io.seconds
	}
	return p
}

// summary is the span of a whole run as a result.ServerSummary.
func (sp span) summary() result.ServerSummary {
	s := result.ServerSummary{
		WALFsyncP50: sp.fsync.quantile(0.5), WALFsyncP99: sp.fsync.quantile(0.99), WALFsyncs: sp.fsync.count(), WALFsyncSeconds: sp.fsyncSeconds,
		BackendCommitP99: sp.commit.quantile(0.99), PeerRTTP99: sp.rtt.quantile(0.99),
		LeaderChanges: sp.leaderChanges, SecondsWithoutLead: sp.noLeaderSeconds, SlowApplies: sp.slowApplies,
		SlowReadIndexes: sp.slowReadIndexes, ProposalsFailed: sp.proposalsFailed, ProposalsPendingMx: sp.pendingMax,
		GRPCRequests: sp.grpc, GRPCErrors: sp.grpcErrors, DBSizeBytes: sp.dbSize, DBInUseBytes: sp.dbInUse,
		CPUCoresMax: sp.cpuMax, RSSMaxBytes: sp.rssMax, NetReceiveBytes: sp.rxBytes, NetSendBytes: sp.txBytes,
	}
	if sp.seconds > 0 {
		s.CPUCoresMean = sp.cpuSeconds / sp.seconds
	}
	// The highest interval is at least the mean; it can only come out
	// lower when the run's one interval was shorter than half an interval.
	s.CPUCoresMax = max(s.CPUCoresMax, s.CPUCoresMean)
	s.PeerRTTLowestBucket, s.PeerRTTHighestBucket = sp.rtt.bucketRange()
	if sp.io != nil {
		s.DiskReadBytes, s.DiskWriteBytes = sp.io.readBytes, sp.io.writeBytes
	}
	return s
}
