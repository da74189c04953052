// Package judge holds the thresholds etcdlab judges measurements by, each
// with its source, in one table shared by every command and report, and
// turns a measured value into a result.Verdict. Everything in it is
// read-only and safe for concurrent use.
package judge

import "sort"

// Threshold is one rule for a metric where higher is worse: PASS below
// Warn, WARN from Warn, FAIL from Fail. A zero Warn means no warning band;
// a zero Fail means the metric only warns.
//
// Its bands are rows of the limits table (Limits), shared with every other
// rule that judges against the same number.
type Threshold struct {
	ID     ID
	What   string
	Unit   string
	Warn   float64
	Fail   float64
	Source string
	// Advice explains a WARN or FAIL: likely cause and fix.
	Advice string
}

// Sources, quoted once.
const (
	srcEtcdFAQ   = "etcd FAQ; OpenShift etcd docs"
	srcEtcdTools = "etcd-tools fio_suite.sh v0.2.0"
	srcEtcdTiers = "etcd hardware guide (50 / 500 IOPS); etcd-tools workflow.md tiers"
)

// row is one threshold as the table holds it: its bands name rows of the
// limits table ("" for none).
type row struct {
	what, unit, source, advice string
	warn, fail                 LimitID
}

// thresholds is the table; it is never written. The server thresholds'
// what names the etcd metric they read (observe/metrics has the names as
// constants, and its tests hold the two together).
var thresholds = map[ID]row{ //nolint:gochecknoglobals // constant table
	DiskFsyncP99: {
		what: "fdatasync p99", unit: "s", fail: LimitWALFsyncP99, source: srcEtcdFAQ,
		advice: "the disk is too slow for etcd's WAL; use SSD/NVMe or a dedicated volume with provisioned IOPS, and no network or shared storage",
	},
	ServerWALFsyncP99: {
		what: "WAL fsync p99 (etcd_disk_wal_fsync_duration_seconds)", unit: "s", fail: LimitWALFsyncP99, source: srcEtcdFAQ,
		advice: "the disk is too slow for etcd; use SSD/NVMe or a dedicated volume, and remove other I/O from it",
	},
	ServerBackendCommitP99: {
		what: "backend commit p99 (etcd_disk_backend_commit_duration_seconds)", unit: "s", fail: LimitBackendCommitP99, source: "etcd FAQ",
		advice: "bbolt commits are slow: a slow disk or CPU starvation; check the disk first",
	},
	ServerPeerRTTP99: {
		what: "peer round trip p99 (etcd_network_peer_round_trip_time_seconds)", unit: "s", warn: LimitPeerRTTWarn, fail: LimitPeerRTTFail,
		source: "OpenShift etcd docs (< 50 ms); etcd-tools workflow.md (40+ ms close)",
		advice: "members are too far apart or the network is congested; keep members within one region and raise heartbeat/election timeouts for the RTT",
	},
	NetworkConnect: {
		what: "TCP connect time to members", unit: "s", warn: LimitConnectWarn, fail: LimitConnectFail,
		source: "etcd-tools etcd-analyzer.sh (about 2 ms, no more than 8 ms); field report 003",
		advice: "the network path to the members is slow or lossy; check routing, MTU and interface drops",
	},
	ServerSlowApplies: {
		what: "slow applies (etcd_server_slow_apply_total)", unit: "count", warn: LimitAny, source: "etcd FAQ (apply should take < 100 ms)",
		advice: "applies took over 100 ms: slow disk (backend commit), CPU starvation, or expensive requests",
	},
	ServerLeaderChanges: {
		what: "leader changes (etcd_server_leader_changes_seen_total)", unit: "count", warn: LimitAny, fail: LimitLeaderChangesFail,
		source: "kube-burner alerts (any); etcd mixin etcdHighNumberOfLeaderChanges (>= 4)",
		advice: "the cluster lost its leader under load: slow fsync, CPU starvation or network; raise election timeouts only after fixing the cause",
	},
	ServerProposalsFailed: {
		what: "failed proposals (etcd_server_proposals_failed_total)", unit: "count", warn: LimitAny, source: "etcd mixin etcdHighNumberOfFailedProposals",
		advice: "proposals failed, usually during leader elections or quorum loss",
	},
	ServerHeartbeatFailures: {
		what: "heartbeat send failures (etcd_server_heartbeat_send_failures_total)", unit: "count", warn: LimitAny, source: "etcd FAQ (failed to send out heartbeat on time)",
		advice: "the leader missed heartbeats: slow disk, CPU starvation or network",
	},
	DiskFsyncP999: {
		what: "fdatasync p99.9", unit: "s", warn: LimitDiskFsyncP999Warn, source: srcEtcdTools,
		advice: "the tail is close to (or past) " + LimitWALFsyncP99.Text() + "; extra I/O on this disk could push p99 over the limit",
	},
}

// Lookup returns the threshold that judges id, and whether there is one.
func Lookup(id ID) (Threshold, bool) {
	r, ok := thresholds[id]
	if !ok {
		return Threshold{}, false
	}
	return Threshold{ID: id, What: r.what, Unit: r.unit, Warn: r.warn.Value(), Fail: r.fail.Value(), Source: r.source, Advice: r.advice}, true
}

// All returns every threshold, ordered by ID.
func All() []Threshold {
	out := make([]Threshold, 0, len(thresholds))
	for id := range thresholds {
		t, _ := Lookup(id)
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
