// Package judge holds the thresholds etcdlab judges measurements by, each
// with its source, in one table shared by every command and report, and
// turns a measured value into a result.Verdict. Everything in it is
// read-only and safe for concurrent use.
package judge

import "sort"

// Threshold is one rule for a metric where higher is worse: PASS below
// Warn, WARN from Warn, FAIL from Fail. A zero Warn means no warning band;
// a zero Fail means the metric only warns.
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

// thresholds is the table; it is never written. The server thresholds'
// What names the etcd metric they read (observe/metrics has the names as
// constants, and its tests hold the two together).
var thresholds = map[ID]Threshold{ //nolint:gochecknoglobals // constant table
	DiskFsyncP99: {
		What: "fdatasync p99", Unit: "s", Fail: 0.010, Source: srcEtcdFAQ,
		Advice: "the disk is too slow for etcd's WAL; use SSD/NVMe or a dedicated volume with provisioned IOPS, and no network or shared storage",
	},
	ServerWALFsyncP99: {
		What: "WAL fsync p99 (etcd_disk_wal_fsync_duration_seconds)", Unit: "s", Fail: 0.010, Source: srcEtcdFAQ,
		Advice: "the disk is too slow for etcd; use SSD/NVMe or a dedicated volume, and remove other I/O from it",
	},
	ServerBackendCommitP99: {
		What: "backend commit p99 (etcd_disk_backend_commit_duration_seconds)", Unit: "s", Fail: 0.025, Source: "etcd FAQ",
		Advice: "bbolt commits are slow: a slow disk or CPU starvation; check the disk first",
	},
	ServerPeerRTTP99: {
		What: "peer round trip p99 (etcd_network_peer_round_trip_time_seconds)", Unit: "s", Warn: 0.040, Fail: 0.050,
		Source: "OpenShift etcd docs (< 50 ms); etcd-tools workflow.md (40+ ms close)",
		Advice: "members are too far apart or the network is congested; keep members within one region and raise heartbeat/election timeouts for the RTT",
	},
	NetworkConnect: {
		What: "TCP connect time to members", Unit: "s", Warn: 0.002, Fail: 0.008,
		Source: "etcd-tools etcd-analyzer.sh (about 2 ms, no more than 8 ms); field report 003",
		Advice: "the network path to the members is slow or lossy; check routing, MTU and interface drops",
	},
	ServerSlowApplies: {
		What: "slow applies (etcd_server_slow_apply_total)", Unit: "count", Warn: 1, Source: "etcd FAQ (apply should take < 100 ms)",
		Advice: "applies took over 100 ms: slow disk (backend commit), CPU starvation, or expensive requests",
	},
	ServerLeaderChanges: {
		What: "leader changes (etcd_server_leader_changes_seen_total)", Unit: "count", Warn: 1, Fail: 4,
		Source: "kube-burner alerts (any); etcd mixin etcdHighNumberOfLeaderChanges (>= 4)",
		Advice: "the cluster lost its leader under load: slow fsync, CPU starvation or network; raise election timeouts only after fixing the cause",
	},
	ServerProposalsFailed: {
		What: "failed proposals (etcd_server_proposals_failed_total)", Unit: "count", Warn: 1, Source: "etcd mixin etcdHighNumberOfFailedProposals",
		Advice: "proposals failed, usually during leader elections or quorum loss",
	},
	ServerHeartbeatFailures: {
		What: "heartbeat send failures (etcd_server_heartbeat_send_failures_total)", Unit: "count", Warn: 1, Source: "etcd FAQ (failed to send out heartbeat on time)",
		Advice: "the leader missed heartbeats: slow disk, CPU starvation or network",
	},
	DiskFsyncP999: {
		What: "fdatasync p99.9", Unit: "s", Warn: 0.0085, Source: srcEtcdTools,
		Advice: "the tail is close to (or past) 10 ms; extra I/O on this disk could push p99 over the limit",
	},
}

// Lookup returns the threshold that judges id, and whether there is one.
func Lookup(id ID) (Threshold, bool) {
	t, ok := thresholds[id]
	if ok {
		t.ID = id
	}
	return t, ok
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
