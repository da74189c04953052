package render

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"
	"github.com/etcdlab/etcdlab/result"
)

// doctorFixture is a diagnosis of a 3-member cluster whose m2 has a slow
// disk (its log agrees), judged by the judge as doctor does.
func doctorFixture() *result.Document {
	member := func(name string, leader bool, fsync float64) result.DoctorMember {
		return result.DoctorMember{Name: name, Endpoint: "http://127.0.0.1:2379", Version: "3.6.16", IsLeader: leader, Reachable: true,
			ClusterID: "c1", LeaderID: "1", RaftAppliedIndex: 1000, DBSize: 40 << 20, DBInUse: 30 << 20, QuotaBytes: 2 << 30,
			ConnectSeconds: 0.0003, ReadSerial: &result.ReadFigure{Samples: 40, P50: 0.0012, Max: 0.004}, ReadLinear: &result.ReadFigure{Samples: 40, P50: 0.002, Max: 0.006},
			Metrics: &result.DoctorMetrics{CPUCores: 0.3, RSSBytes: 80 << 20, Goroutines: 120, WALFsyncP99: fsync, WALFsyncP999: fsync * 1.5, WALFsyncs: 400,
				CommitP99: 0.004, PeerRTTP99: 0.0008, HasLeader: true, GRPCRequests: 2000}}
	}
	d := &result.Doctor{WindowSeconds: 8, Members: []result.DoctorMember{member("m1", true, 0.004), member("m2", false, 0.268), member("m3", false, 0.0035)},
		Keyspace: &result.KeyspaceCensus{Revision: 42, Keys: 3, Bytes: 3000, Prefixes: []result.PrefixUsage{{Prefix: "/registry/", Keys: 3, Bytes: 3000}, {Prefix: "/registry/pods/", Keys: 2, Bytes: 2500}}},
		Logs: &result.LogCensus{Sources: []string{"logs/m2.log"}, Formats: []string{"json"}, Lines: 100, Messages: []result.LogMessage{
			{Member: "m2", Key: "slow-fdatasync", Text: "slow fdatasync", Cause: "disk", Count: 37, Took: &result.TookSummary{Min: 1.1, Median: 1.4, Max: 2.9}}}}}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindDoctor, CreatedAt: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC), Doctor: d}
	judgedoctor.Judge(doc)
	return doc
}

// TestDoctorText: the diagnosis names m2's disk first with the metric and
// the log as evidence, stays within 120 columns, and matches its golden
// file.
func TestDoctorText(t *testing.T) {
	t.Parallel()
	doc := doctorFixture()
	var b bytes.Buffer
	if err := DoctorText(&b, doc, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"Diagnosis (FAIL):", "1. FAIL disk on m2: the disk of m2: WAL fsync p99 268.00 ms", `"slow fdatasync" 37 times in m2's log`, "Keyspace at revision 42"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > TermWidth {
			t.Errorf("%d columns: %s", n, l)
		}
	}
	golden(t, "doctor.txt", b.Bytes())
}
