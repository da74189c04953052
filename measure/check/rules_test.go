package check

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// TestRulesFromRecordedMetrics runs the rule engine on recorded numbers:
// the HDD article's disk (fsync p99 268 ms) fails and names the disk.
func TestRulesFromRecordedMetrics(t *testing.T) {
	t.Parallel()
	hdd := []result.MemberCheck{
		{Name: "m1", WalFsyncP99: 0.268, BackendCommitP99: 0.041, LeaderChanges: 2, SlowApplies: 30, HeartbeatFailures: 5},
		{Name: "m2", WalFsyncP99: 0.190, BackendCommitP99: 0.020, PeerRTTP99: 0.0015, PeerRTTSamples: 2},
		{Name: "m3", Error: "m3: cannot scrape http://10.0.0.3:2381/metrics: connection refused"},
	}
	vs := serverVerdicts(hdd, true)
	get := func(id judge.ID) result.Verdict {
		for _, v := range vs {
			if v.ID == string(id) {
				return v
			}
		}
		t.Fatalf("no verdict %s in %+v", id, vs)
		return result.Verdict{}
	}
	if v := get(judge.ServerWALFsyncP99); v.Status != result.Fail || !strings.Contains(v.Explanation, "disk is too slow") || !strings.Contains(v.What, "worst: m1") {
		t.Errorf("wal fsync: %+v", v)
	}
	if v := get(judge.ServerBackendCommitP99); v.Status != result.Fail {
		t.Errorf("commit: %+v", v)
	}
	if v := get(judge.ServerLeaderChanges); v.Status != result.Warn {
		t.Errorf("leader changes: %+v", v)
	}
	if v := get(judge.ServerPeerRTTP99); v.Status != result.Pass {
		t.Errorf("rtt: %+v", v)
	}
	if v := get(judge.ServerMetrics); v.Status != result.Warn || !strings.Contains(v.Explanation, "connection refused") {
		t.Errorf("partial metrics: %+v", v)
	}
	if result.Overall(vs) != result.Fail {
		t.Error("overall must be FAIL")
	}
	// No metrics at all: SKIPs that say why, not a pass.
	none := serverVerdicts([]result.MemberCheck{{Name: "m1", Error: "x does not serve Prometheus metrics"}}, true)
	for _, v := range none {
		if v.Status != result.Skip || !strings.Contains(v.Explanation, "could not measure: x does not serve Prometheus metrics") {
			t.Errorf("no metrics: %+v", v)
		}
	}
}

func TestLevelRules(t *testing.T) {
	t.Parallel()
	l := Levels()[1] // m: 1000 writes/s
	ok := result.Run{Stats: result.Stats{ThroughputRPS: 901, Latency: result.Latency{Max: 0.5, Stddev: 0.1}}}
	if got := judgeLevel(l, ok); !got.Passed {
		t.Fatalf("at the limits: %+v", got)
	}
	for name, r := range map[string]result.Run{
		"throughput": {Stats: result.Stats{ThroughputRPS: 900, Latency: result.Latency{Max: 0.1}}},
		"slowest":    {Stats: result.Stats{ThroughputRPS: 1000, Latency: result.Latency{Max: 0.5001}}},
		"stddev":     {Stats: result.Stats{ThroughputRPS: 1000, Latency: result.Latency{Stddev: 0.1001}}},
		"errors":     {Stats: result.Stats{ThroughputRPS: 1000, Errors: map[string]int64{"Unavailable": 1}}},
	} {
		if got := judgeLevel(l, r); got.Passed || len(got.Why) != 1 {
			t.Errorf("%s: %+v", name, got)
		}
	}
	lv := judgeLevel(l, ok)
	lv.WalFsyncP99 = 0.012
	judgeServerDuring(&lv, "")
	if lv.Passed || !strings.Contains(strings.Join(lv.Why, ""), "WAL fsync") || !strings.Contains(strings.Join(lv.Why, ""), "disk") {
		t.Errorf("fsync during the level: %+v", lv)
	}
	// Capacity: first level failing is FAIL; a later one is the limit.
	s, m := result.CheckLevel{Name: "s", Rate: 150, Passed: true}, result.CheckLevel{Name: "m", Rate: 1000, Why: []string{"slow"}}
	if v := capacityVerdict([]result.CheckLevel{s, m}, Levels()[0], Levels()[3]); v.Status != result.Pass || !strings.Contains(v.Explanation, "the limit: level m") {
		t.Errorf("limit: %+v", v)
	}
	m.Name = "s"
	if v := capacityVerdict([]result.CheckLevel{m}, Levels()[0], Levels()[3]); v.Status != result.Fail {
		t.Errorf("first level failing: %+v", v)
	}
}

// TestCheckReasonsLikeDoctor: a disk the probe measured as fast is ruled
// out by that figure, not advised to be checked first; a level that failed
// while other processes took the machine's CPU says so, and the capacity
// verdict says the machine was busy (WARN), not that the hardware is too
// slow (issue 23, case 5).
func TestCheckReasonsLikeDoctor(t *testing.T) {
	t.Parallel()
	fast := fastDisk([]result.Verdict{judge.Value(judge.DiskFsyncP99, 0.00024, units.Seconds)})
	if !strings.Contains(fast, "240.0 µs") {
		t.Fatalf("fast disk: %q", fast)
	}
	if slow := fastDisk([]result.Verdict{judge.Value(judge.DiskFsyncP99, 0.02, units.Seconds)}); slow != "" {
		t.Errorf("a slow disk ruled out: %q", slow)
	}
	lv := result.CheckLevel{Name: "s", Rate: 150, Passed: true, BackendCommitP99: 0.045}
	judgeServerDuring(&lv, fast)
	why := strings.Join(lv.Why, "; ")
	if lv.Passed || !strings.Contains(why, "not the disk: the disk probe measured fdatasync p99 240.0 µs") || strings.Contains(why, "check the disk first") {
		t.Errorf("commit with a fast disk: %q", why)
	}
	lv.OtherCPUCores, lv.MembersCPUCores, lv.LoadCPUCores = 1.6, 0.3, 0.1
	if !busy(&lv) || !strings.Contains(strings.Join(lv.Why, "; "), "other processes used 1.6 cores") {
		t.Errorf("busy: %+v", lv)
	}
	v := capacityVerdict([]result.CheckLevel{lv}, Levels()[0], Levels()[3])
	if v.Status != result.Warn || !strings.Contains(v.Explanation, "the machine was busy, not that the hardware is too slow") {
		t.Errorf("busy machine's capacity: %+v", v)
	}
	quiet := result.CheckLevel{Name: "s", Rate: 150, Why: []string{"slow"}, OtherCPUCores: 0.2}
	if busy(&quiet) {
		t.Error("0.2 cores of other work made the machine busy")
	}
	if v := capacityVerdict([]result.CheckLevel{quiet}, Levels()[0], Levels()[3]); v.Status != result.Fail {
		t.Errorf("an idle machine's failure: %+v", v)
	}
}

// TestThresholdsNameTheirMetric: the server thresholds' descriptions name
// the etcd metric this package reads for them, spelt as package metrics
// spells it.
func TestThresholdsNameTheirMetric(t *testing.T) {
	t.Parallel()
	for id, m := range map[judge.ID]metrics.Name{
		judge.ServerWALFsyncP99:       metrics.WALFsyncDuration,
		judge.ServerBackendCommitP99:  metrics.BackendCommitDuration,
		judge.ServerPeerRTTP99:        metrics.PeerRoundTripTime,
		judge.ServerSlowApplies:       metrics.SlowApplies,
		judge.ServerLeaderChanges:     metrics.LeaderChanges,
		judge.ServerProposalsFailed:   metrics.ProposalsFailed,
		judge.ServerHeartbeatFailures: metrics.HeartbeatSendFailures,
	} {
		th, ok := judge.Lookup(id)
		if !ok || !strings.Contains(th.What, string(m)) {
			t.Errorf("%s: %q does not name %s", id, th.What, m)
		}
	}
}
