// Package verdict holds the thresholds etcdlab judges measurements by, each
// with its source, in one table shared by every command and report.
package judge

import (
	"fmt"
	"sort"

	"github.com/etcdlab/etcdlab/result"
)

// Threshold is one rule. Pass below Warn; WARN from Warn; FAIL from Fail
// (for "higher is worse" metrics). Zero Warn means no warning band.
type Threshold struct {
	ID     string
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

// Thresholds is the table. It is read-only.
var Thresholds = map[string]Threshold{ //nolint:gochecknoglobals // constant table
	"disk.fsync.p99": {
		ID: "disk.fsync.p99", What: "fdatasync p99", Unit: "s", Fail: 0.010, Source: srcEtcdFAQ,
		Advice: "the disk is too slow for etcd's WAL; use SSD/NVMe or a dedicated volume with provisioned IOPS, and no network or shared storage",
	},
	"server.wal_fsync.p99": {
		ID: "server.wal_fsync.p99", What: "WAL fsync p99 (etcd_disk_wal_fsync_duration_seconds)", Unit: "s", Fail: 0.010, Source: "etcd FAQ; OpenShift etcd docs",
		Advice: "the disk is too slow for etcd; use SSD/NVMe or a dedicated volume, and remove other I/O from it",
	},
	"server.backend_commit.p99": {
		ID: "server.backend_commit.p99", What: "backend commit p99 (etcd_disk_backend_commit_duration_seconds)", Unit: "s", Fail: 0.025, Source: "etcd FAQ",
		Advice: "bbolt commits are slow: a slow disk or CPU starvation; check the disk first",
	},
	"server.peer_rtt.p99": {
		ID: "server.peer_rtt.p99", What: "peer round trip p99 (etcd_network_peer_round_trip_time_seconds)", Unit: "s", Warn: 0.040, Fail: 0.050,
		Source: "OpenShift etcd docs (< 50 ms); etcd-tools workflow.md (40+ ms close)",
		Advice: "members are too far apart or the network is congested; keep members within one region and raise heartbeat/election timeouts for the RTT",
	},
	"network.connect": {
		ID: "network.connect", What: "TCP connect time to members", Unit: "s", Warn: 0.002, Fail: 0.008,
		Source: "etcd-tools etcd-analyzer.sh (about 2 ms, no more than 8 ms); field report 003",
		Advice: "the network path to the members is slow or lossy; check routing, MTU and interface drops",
	},
	"server.slow_applies": {
		ID: "server.slow_applies", What: "slow applies (etcd_server_slow_apply_total)", Unit: "count", Warn: 1, Source: "etcd FAQ (apply should take < 100 ms)",
		Advice: "applies took over 100 ms: slow disk (backend commit), CPU starvation, or expensive requests",
	},
	"server.leader_changes": {
		ID: "server.leader_changes", What: "leader changes (etcd_server_leader_changes_seen_total)", Unit: "count", Warn: 1, Fail: 4,
		Source: "kube-burner alerts (any); etcd mixin etcdHighNumberOfLeaderChanges (>= 4)",
		Advice: "the cluster lost its leader under load: slow fsync, CPU starvation or network; raise election timeouts only after fixing the cause",
	},
	"server.proposals_failed": {
		ID: "server.proposals_failed", What: "failed proposals (etcd_server_proposals_failed_total)", Unit: "count", Warn: 1, Source: "etcd mixin etcdHighNumberOfFailedProposals",
		Advice: "proposals failed, usually during leader elections or quorum loss",
	},
	"server.heartbeat_failures": {
		ID: "server.heartbeat_failures", What: "heartbeat send failures (etcd_server_heartbeat_send_failures_total)", Unit: "count", Warn: 1, Source: "etcd FAQ (failed to send out heartbeat on time)",
		Advice: "the leader missed heartbeats: slow disk, CPU starvation or network",
	},
	"disk.fsync.p999": {
		ID: "disk.fsync.p999", What: "fdatasync p99.9", Unit: "s", Warn: 0.0085, Fail: 0, Source: srcEtcdTools,
		Advice: "the tail is close to (or past) 10 ms; extra I/O on this disk could push p99 over the limit",
	},
}

// IDs returns the thresholds' IDs in order.
func IDs() []string {
	ids := make([]string, 0, len(Thresholds))
	for id := range Thresholds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Judge applies "lower is better" threshold id to value v (in the
// threshold's unit) and returns the verdict. display renders values.
func Judge(id string, v float64, display func(float64) string) result.Verdict {
	t, ok := Thresholds[id]
	if !ok {
		return result.Verdict{ID: id, What: id, Value: v, Display: display(v), Status: result.Skip,
			Explanation: "no threshold " + id + " in the table (a bug in etcdlab)"}
	}
	out := result.Verdict{ID: t.ID, What: t.What, Value: v, Unit: t.Unit, Display: display(v), Source: t.Source, Status: result.Pass}
	switch {
	case t.Fail > 0 && t.Warn > 0:
		out.Threshold = fmt.Sprintf("< %s (warn from %s)", display(t.Fail), display(t.Warn))
	case t.Fail > 0:
		out.Threshold = "< " + display(t.Fail)
	default:
		out.Threshold = "warn from " + display(t.Warn)
	}
	switch {
	case t.Fail > 0 && v >= t.Fail:
		out.Status = result.Fail
	case t.Warn > 0 && v >= t.Warn:
		out.Status = result.Warn
	}
	if out.Status != result.Pass {
		out.Explanation = fmt.Sprintf("%s %s (%s): %s", t.What, display(v), out.Threshold, t.Advice)
	}
	return out
}

// IOPSTier judges sequential fdatasync IOPS against the etcd tiers: below
// 50 unusable (FAIL), 50 development only (WARN), 300 small/medium, 500
// medium/large, 800+ large clusters with heavy load.
func IOPSTier(iops float64) result.Verdict {
	v := result.Verdict{ID: "disk.fsync.iops", What: "sequential fdatasync IOPS", Value: iops, Unit: "IOPS",
		Display: fmt.Sprintf("%.0f", iops), Source: srcEtcdTiers}
	switch {
	case iops < 50:
		v.Status, v.Threshold = result.Fail, ">= 50 (below: unusable)"
		v.Explanation = fmt.Sprintf("%.0f sequential fdatasync IOPS is below etcd's minimum of 50: a cluster on this disk will miss heartbeats and elect leaders under the lightest load; use an SSD", iops)
	case iops < 300:
		v.Status, v.Threshold = result.Warn, "tier 50: development only"
		v.Explanation = fmt.Sprintf("%.0f IOPS is enough for development only; production clusters need 300 (small/medium) to 500+ (heavy load)", iops)
	case iops < 500:
		v.Status, v.Threshold = result.Pass, "tier 300: small/medium cluster"
	case iops < 800:
		v.Status, v.Threshold = result.Pass, "tier 500: medium/large cluster"
	default:
		v.Status, v.Threshold = result.Pass, "tier 800+: large cluster, heavy load"
	}
	return v
}
