package check

import (
	"fmt"
	"math"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// floorInput is what the latency floor is computed from.
type floorInput struct {
	// diskP50 is the disk probe's sample fdatasync p50 on the local
	// cluster's disk; 0 when no disk probe ran (a live cluster).
	diskP50 float64
	// loopback says the members are on this machine's loopback: the local
	// cluster check starts.
	loopback bool
	// probe is the 1-client latency probe.
	probe result.Run
	// names are the members' names, index-aligned with the snapshots.
	names []string
	// before and after are every member's scrape just before and just
	// after the probe (nil: could not be read).
	before, after []*metrics.Snapshot
	// first and last span the whole check, for etcd's own peer round trip
	// (information only).
	first, last []*metrics.Snapshot
}

// fsyncSource is where the fsync term came from; it decides what to say
// when the floor turns out wrong.
type fsyncSource int

const (
	fsyncNone fsyncSource = iota
	fsyncDisk
	fsyncLeaderMetrics
)

// floor computes a lower bound of the 1-client probe's put latency p50 and
// holds the p50 the probe achieved against it. The floor is a sum of terms
// that each put waits for one after the other, each a lower bound or 0;
// a term with no source that bounds it is 0 and its text says why.
//
// The fsync term, from metrics. A put returns after its entry is applied,
// and etcd applies an entry only after the leader's WAL write of it
// (fdatasync included) returned: with more than one member the committed
// entries reach the apply loop in a later Ready than the one that wrote
// them, and raft gives the next Ready only after Advance, which etcd calls
// after the write; a one-member cluster, where raft commits an entry in the
// Ready that writes it, waits for the write since etcd PR 14394 (issue
// 14370). The probe has one client, so its puts are sequential and each
// waits for a WAL fsync of its own that starts after the put is sent and
// ends before it returns. With n successful puts, the k-th smallest latency
// is therefore at least the k-th smallest of those n fsyncs, hence at least
// the k-th smallest of all the leader's fsyncs between the scrapes around
// the probe (a superset: other clients' writes only add fsyncs), which lies
// above the lower edge of the histogram bucket holding rank k
// (metrics.RankBucket). The probe's p50 is read from an HDR histogram at
// rank round(n/2) >= k = n/2 and never below a recorded value, which
// truncates to whole microseconds, as etcd's bucket edges are; so the lower
// edge bounds it. The interpolated quantile does not: it can lie above the
// sample quantile.
// The leader is the member read whose etcd_server_is_leader was 1 in both
// scrapes with no leader change between them; when none was, the term is 0.
// etcd's fsync buckets double from 1 ms, so the bound can be half the true
// value, and a disk that syncs in under 1 ms gets 0.
//
// The fsync term, for the local cluster. The disk probe's fdatasync p50 is
// a sample quantile (HDR, 3 significant digits) of the same operation
// (etcd's fio job: small appends, each followed by fdatasync) on the same
// disk with nothing else on it. It is a measurement, not a theorem: during
// the probe three members append and sync on that disk at once, which on
// the disks we know makes each fsync slower, not faster, but a disk whose
// latency changed between the two phases breaks it. Then the floor comes out above the probe's p50,
// and Wrong says so rather than printing a ratio below 1.
//
// The round-trip term is 0. For the local cluster the members talk over
// this machine's loopback. For a live cluster nothing the client observes
// is a lower bound of the peer round trip a proposal waits for: the TCP
// connect time from here is another path, measured at other moments (a
// median of five handshakes), and etcd_network_peer_round_trip_time_seconds
// is the rafthttp prober's smoothed round trip of an HTTP(S) request every
// few seconds, observed every 30 s into buckets that double, so it includes
// HTTP and TLS work a proposal does not do and can far exceed the round
// trip (issue 13: 6.4 ms against a put p50 of 2.05 ms). It is shown for
// information, outside the floor. Even an exact peer round trip would not
// simply add to the leader's fsync: a follower's append and fsync overlap
// the leader's, so a put waits for max(leader fsync, round trip + follower
// fsync), not their sum. The client's own round trip to the member is in
// every put too, but the connect time is an estimate of it (a handshake
// includes kernel work), not a bound, so it stays out as well.
func floor(in floorInput) *result.Floor {
	if in.probe.Requests == 0 {
		return nil
	}
	f := &result.Floor{ProbeP50: in.probe.Latency.P50}
	src := fsyncNone
	if in.diskP50 > 0 {
		src = fsyncDisk
		f.FsyncSeconds, f.FsyncFrom = in.diskP50, "the disk probe's fdatasync p50 on this disk (a sample quantile; nothing else on the disk)"
	} else {
		var ok bool
		f.FsyncSeconds, f.FsyncFrom, ok = leaderFsyncBound(in)
		if ok {
			src = fsyncLeaderMetrics
		}
	}
	if in.loopback {
		f.RTTFrom = "members on this machine's loopback"
	} else {
		f.RTTFrom = "no lower bound of the peer round trip is observable from a client"
	}
	f.FloorSeconds = f.FsyncSeconds + f.RTTSeconds
	if f.FloorSeconds > 0 {
		f.RatioToFloor = f.ProbeP50 / f.FloorSeconds
	}
	if f.FloorSeconds > f.ProbeP50 {
		f.Wrong = wrongFloor(f, src)
	}
	f.PeerRTTP50, f.PeerRTTFrom = proberRTT(in.first, in.last)
	return f
}

// leaderFsyncBound is the fsync term from the members' metrics: the lower
// edge of the bucket of the leader's WAL fsync histogram, over the probe,
// that holds the probe's median rank (see floor). ok is false, and the
// term 0 with the reason in from, when no member read was the leader
// throughout the probe or its histogram cannot hold the rank.
func leaderFsyncBound(in floorInput) (seconds float64, from string, ok bool) {
	leader := -1
	for i := range in.before {
		if i < len(in.after) && leaderThroughout(in.before[i], in.after[i]) {
			leader = i
			break
		}
	}
	if leader < 0 {
		return 0, fmt.Sprintf("no lower bound: no member whose metrics were read was the leader throughout the probe (%s), so which fsyncs the puts waited for is unknown", metrics.IsLeader), false
	}
	name := fmt.Sprint(leader)
	if leader < len(in.names) {
		name = in.names[leader]
	}
	cum, found := metrics.Deltas(in.before[leader], in.after[leader], metrics.WALFsyncDuration)
	if !found {
		return 0, fmt.Sprintf("no lower bound: the leader (%s) has no %s", name, metrics.WALFsyncDuration), false
	}
	k := max(in.probe.Requests/2, 1)
	n := cum[math.Inf(1)]
	lower, upper, found := metrics.RankBucket(float64(k), cum)
	if !found {
		return 0, fmt.Sprintf("no lower bound: the leader (%s) made %.0f WAL fsyncs during the probe, fewer than the %d puts' median rank %d", name, n, in.probe.Requests, k), false
	}
	lower = math.Max(lower, 0)
	return lower, fmt.Sprintf("lower edge of the bucket (%s, %s] of %s holding fsync %d of the %.0f the leader (%s) made during the probe",
		zeroOr(lower), units.Seconds(upper), metrics.WALFsyncDuration, k, n, name), true
}

// leaderThroughout reports whether a member was the leader in both scrapes
// and saw no leader change between them.
func leaderThroughout(b, a *metrics.Snapshot) bool {
	if b == nil || a == nil {
		return false
	}
	lb, ok1 := b.Gauge(metrics.IsLeader)
	la, ok2 := a.Gauge(metrics.IsLeader)
	changes, ok3 := metrics.Increase(b, a, metrics.LeaderChanges)
	return ok1 && ok2 && ok3 && lb == 1 && la == 1 && changes == 0
}

// wrongFloor says why a floor above the probe's p50 is wrong: which term
// exceeded what the probe achieved, and what its source failed to bound.
func wrongFloor(f *result.Floor, src fsyncSource) string {
	from, why := "", "a term exceeded what it should bound"
	switch src {
	case fsyncDisk:
		from = ", from the disk probe"
		why = "the disk probe measured fdatasync on this disk before the cluster ran, which estimates the WAL fsyncs the puts waited for but does not bound them: they were faster during the probe (the disk's latency changed between the phases)"
	case fsyncLeaderMetrics:
		from = ", from the leader's WAL fsync histogram"
		why = "that bound assumes each put waited for a WAL fsync of its own on a leader that did not change; a premise failed (a restarted member, a leader change the metrics missed, or scrapes out of order)"
	case fsyncNone:
	}
	var over string
	switch {
	case f.FsyncSeconds > f.ProbeP50:
		over = fmt.Sprintf("the fsync term (%s%s) alone exceeds it", units.Seconds(f.FsyncSeconds), from)
	case f.RTTSeconds > f.ProbeP50:
		over = fmt.Sprintf("the round-trip term (%s) alone exceeds it", units.Seconds(f.RTTSeconds))
	default:
		over = fmt.Sprintf("fsync %s and round trip %s together exceed it", units.Seconds(f.FsyncSeconds), units.Seconds(f.RTTSeconds))
	}
	return fmt.Sprintf("the floor estimate is wrong: the 1-client put p50 (%s) is below the floor (%s); %s; %s",
		units.Seconds(f.ProbeP50), units.Seconds(f.FloorSeconds), over, why)
}

// proberRTT is etcd's own peer round trip p50 over the check, all members'
// observations together (interpolated as PromQL would: information, not a
// bound), and what it is; 0 and "" when etcd observed none.
func proberRTT(first, last []*metrics.Snapshot) (float64, string) {
	all := map[float64]float64{}
	eachPair(first, last, func(b, a *metrics.Snapshot) {
		if d, ok := metrics.Deltas(b, a, metrics.PeerRoundTripTime); ok {
			for le, v := range d {
				all[le] += v
			}
		}
	})
	q := metrics.HistogramQuantile(0.5, all)
	if math.IsNaN(q) {
		return 0, ""
	}
	return q, fmt.Sprintf("%s p50 of %.0f observations: etcd's prober, a smoothed round trip of an HTTP(S) request every few seconds, observed every 30 s; not part of the floor, as it includes HTTP and TLS work a proposal does not do",
		metrics.PeerRoundTripTime, all[math.Inf(1)])
}

// zeroOr renders 0 as "0", anything else as units.Seconds does.
func zeroOr(s float64) string {
	if s == 0 {
		return "0"
	}
	return units.Seconds(s)
}
