package doctor

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// healthyMember is a member of a quiet, healthy 3-member cluster: local
// reads of 1 ms, linearizable ones of 2 ms, fast disk, a leader (m1).
func healthyMember(name, id string, leader bool) result.DoctorMember {
	return result.DoctorMember{Name: name, ID: id, Endpoint: "http://" + name + ":2379", Version: "3.6.5", Reachable: true, IsLeader: leader, LeaderID: "a1",
		ClusterID: "c", RaftIndex: 30000, RaftAppliedIndex: 30000, AnsweredAtEnd: true, RaftIndexAtEnd: 30100, AppliedAtEnd: 30100,
		DBSize: 40 << 20, DBInUse: 30 << 20, ConnectSeconds: 0.0003,
		ReadSerial: &result.ReadFigure{Samples: 30, P50: 0.001, Max: 0.004},
		ReadLinear: &result.ReadFigure{Samples: 30, P50: 0.002, Max: 0.006},
		Metrics: &result.DoctorMetrics{CPUCores: 0.1, WALFsyncP50: 0.0005, WALFsyncP99: 0.001, WALFsyncs: 300, CommitP99: 0.002,
			GRPCRequests: 200, HasLeader: true}}
}

func healthyCluster() *result.Document {
	return &result.Document{Kind: result.KindDoctor, Doctor: &result.Doctor{WindowSeconds: 8, Members: []result.DoctorMember{
		healthyMember("m1", "a1", true), healthyMember("m2", "b2", false), healthyMember("m3", "c3", false)}}}
}

// oneCause checks that the top finding is cause on member ("" for the
// cluster's) and that no other finding names another cause.
func oneCause(t *testing.T, name string, d *result.Doctor, cause Cause, member string) {
	t.Helper()
	fs := d.Findings
	if len(fs) == 0 || fs[0].Cause != string(cause) || fs[0].Member != member {
		t.Errorf("%s: findings %+v, want %s on %q first", name, fs, cause, member)
		return
	}
	for _, f := range fs[1:] {
		if f.Cause != string(cause) {
			t.Errorf("%s: a %s %s finding beside the %s: %s", name, f.Status, f.Cause, cause, f.Summary)
		}
	}
}

func hasEvidence(f result.Finding, part string) bool {
	for _, e := range f.Evidence {
		if strings.Contains(e, part) {
			return true
		}
	}
	return false
}

// TestCompaction: a compaction running on every member in the window is
// the cluster's compaction finding, and what it slows (backend commits
// while the WAL syncs fast, slow applies, read indexes that wait for
// them, the logs' slow applies) is its evidence, not a disk or network
// finding; a short compaction is a check, not a finding; a compaction
// seen only in a log line ("finished scheduled compaction") is no
// finding either.
func TestCompaction(t *testing.T) {
	t.Parallel()
	doc := healthyCluster()
	for i := range doc.Doctor.Members {
		x := doc.Doctor.Members[i].Metrics
		x.CompactionBatches, x.CompactionPauseSeconds, x.Compacting = 300, 1.8, true
		x.CompactRevisionBefore, x.CompactRevisionAfter = 1000, 301000
		x.CommitP99, x.SlowApplies, x.SlowReadIndexes = 0.120, 4, 2
	}
	doc.Doctor.Logs = &result.LogCensus{Lines: 10, Messages: []result.LogMessage{
		{Member: "m2", Key: "apply-took-too-long", Text: "apply request took too long", Cause: "disk", Count: 3},
		{Member: "m1", Key: "compaction-finished", Text: "finished scheduled compaction", Cause: "compaction", Count: 1, Took: &result.TookSummary{Min: 9, Median: 9, Max: 9}},
	}}
	Judge(doc)
	oneCause(t, "compacting", doc.Doctor, CauseCompaction, "")
	if f := doc.Doctor.Findings[0]; !hasEvidence(f, "backend commit p99") || !hasEvidence(f, "still compacting") || !hasEvidence(f, "finished scheduled compaction") || f.Status != result.Warn {
		t.Errorf("the compaction's finding lacks its symptoms or its log line: %+v", f)
	}

	short := healthyCluster()
	x := short.Doctor.Members[0].Metrics
	x.CompactionBatches, x.CompactionPauseSeconds, x.CompactionsFinished, x.CompactionSeconds = 1, 0.004, 1, 0.004
	short.Doctor.Logs = &result.LogCensus{Lines: 3, Messages: []result.LogMessage{
		{Member: "m1", Key: "compaction-finished", Text: "finished scheduled compaction", Cause: "compaction", Count: 1}}}
	Judge(short)
	if len(short.Doctor.Findings) > 0 {
		t.Errorf("a 4 ms compaction and its log line made findings: %+v", short.Doctor.Findings)
	}
	checked := false
	for _, st := range short.Doctor.Steps {
		for _, v := range st.Checks {
			checked = checked || (v.ID == "server.compaction" && v.Status == result.Pass)
		}
	}
	if !checked {
		t.Error("the short compaction is not among the disk step's checks")
	}
}

// TestCatchUp: a member catching up with the leader (a snapshot sent to
// it, its applied index far behind and closing; or a member that
// answered nothing at the start and answers at the end) is a catch-up
// finding; its distance, its silence and its peers' failed sends are
// its evidence, not membership or network findings.
func TestCatchUp(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		set    func(m1, m3 *result.DoctorMember)
		status string
		want   string
	}{
		{"a snapshot sent to a lagging member", func(m1, m3 *result.DoctorMember) {
			m1.Metrics.SnapshotSendTo = []string{"c3"}
			m1.Metrics.PeerSendFailures = 12
			m3.RaftAppliedIndex, m3.AppliedAtEnd = 8000, 30090
			m3.Metrics.SnapshotReceiving = true
			m3.UptimeSeconds = 9
		}, result.Warn, "snapshot of its database"},
		{"a long log replayed", func(_, m3 *result.DoctorMember) {
			m3.RaftAppliedIndex, m3.AppliedAtEnd = 12000, 25000
			m3.ReadLinear.P50 = 0.3 // its reads wait for it to apply
		}, result.Warn, "entries behind the leader's at the start"},
		{"down at the start, answering at the end", func(m1, m3 *result.DoctorMember) {
			m3.Reachable, m3.Error, m3.Metrics, m3.ReadSerial, m3.ReadLinear = false, "dial tcp 127.0.0.1:2379: connect: connection refused", nil, nil, nil
			m3.AppliedAtEnd = 29000
			m1.Metrics.PeerSendFailures = 30
		}, result.Fail, "answered no Status at the start"},
		{"applying a snapshot, not ready", func(m1, m3 *result.DoctorMember) {
			m3.Reachable, m3.Unresponsive, m3.Error, m3.ReadSerial, m3.ReadLinear = false, true, "context deadline exceeded", nil, nil
			m3.AnsweredAtEnd = false
			m1.Metrics.SnapshotSendTo = []string{"c3"}
		}, result.Fail, "sent m3 a snapshot"},
	} {
		doc := healthyCluster()
		ms := doc.Doctor.Members
		tc.set(&ms[0], &ms[2])
		if ms[2].RaftAppliedIndex > 0 && ms[2].RaftAppliedIndex < 30000 {
			// The membership step's own symptom: m3's applied index far behind.
			ms[2].RaftIndex = ms[2].RaftAppliedIndex
		}
		Judge(doc)
		oneCause(t, tc.name, doc.Doctor, CauseCatchUp, "m3")
		if fs := doc.Doctor.Findings; len(fs) > 0 && (fs[0].Status != tc.status || !hasEvidence(fs[0], tc.want)) {
			t.Errorf("%s: %s %q, want %s with %q", tc.name, fs[0].Status, fs[0].Evidence, tc.status, tc.want)
		}
	}

	// A member down throughout is no catch-up: it does not answer.
	doc := healthyCluster()
	m3 := &doc.Doctor.Members[2]
	m3.Reachable, m3.AnsweredAtEnd, m3.Error, m3.Metrics, m3.ReadSerial, m3.ReadLinear = false, false, "connection refused", nil, nil, nil
	Judge(doc)
	oneCause(t, "down throughout", doc.Doctor, CauseMembership, "m3")
}

// TestDefragLength: the next defragmentation's length is said for each
// large database at the best rate doctor has: the member's own past
// defragmentations, else the disk job's bandwidth, else judge's default
// per GiB; on a fragmented member it is a line of the fragmentation
// finding.
func TestDefragLength(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		set  func(doc *result.Document, m2 *result.DoctorMember)
		want string
	}{
		{"its own defragmentations", func(_ *result.Document, m2 *result.DoctorMember) {
			m2.Metrics.Defrags, m2.Metrics.DefragSeconds = 2, 12
		}, "about 6.0 s: its own 2 defragmentations"},
		{"the disk job", func(doc *result.Document, _ *result.DoctorMember) {
			doc.Disk = &result.Disk{Dir: "/var/lib/etcd", Jobs: []result.DiskJob{{Name: "etcd", WriteOps: 1000, BandwidthBytesS: 100 << 20}}}
		}, "about 10.2 s: the disk job's best write bandwidth"},
		{"the default", func(*result.Document, *result.DoctorMember) {}, "about 6.7 s: the default 6.7 s per GiB in use"},
	} {
		doc := healthyCluster()
		m2 := &doc.Doctor.Members[1]
		m2.DBSize, m2.DBInUse = 3<<30, 1<<30
		tc.set(doc, m2)
		Judge(doc)
		fs := doc.Doctor.Findings
		if len(fs) != 1 || fs[0].Cause != string(CauseFragmentation) || !hasEvidence(fs[0], tc.want) {
			t.Errorf("%s: %+v, want a fragmentation finding saying %q", tc.name, fs, tc.want)
		}
	}
}
