package render

import (
	"bytes"
	"flag"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	goldenfile "github.com/etcdlab/etcdlab/internal/golden"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

var update = flag.Bool("update", false, "rewrite golden files")

// fixture is a two-iteration put run with known numbers.
func fixture(t *testing.T) *result.Document {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for i := int64(1); i <= 1000; i++ {
		_ = h.RecordValue(1000 + i*10) // 1.01 ms .. 11 ms
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	stats := func(rps float64) result.Stats {
		return result.Stats{
			Requests: 1000, Errors: map[string]int64{"Unavailable": 2}, ErrorMessages: map[string]int64{"etcdserver: no leader": 2},
			DurationSeconds: 1000 / rps, ThroughputRPS: rps,
			Latency: result.Latency{Min: 0.00101, Mean: 0.006005, Stddev: 0.002887, Max: 0.011, P10: 0.002, P25: 0.0035,
				P50: 0.006, P75: 0.0085, P90: 0.01, P95: 0.0105, P99: 0.0109, P999: 0.011},
			Histogram:  string(enc),
			TimeSeries: []result.Second{{UnixSecond: 1700000000, Requests: 1000, Errors: 2, Min: 0.00101, Mean: 0.006005, Max: 0.011}},
		}
	}
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	return &result.Document{
		SchemaVersion: 1, Kind: "bench", Bench: &result.BenchConfig{Command: "put", Iterations: 2},
		Runs: []result.Run{
			{Name: "put conns=1 clients=10 iteration=1", Conns: 1, Clients: 10, Iteration: 1, Start: start, Stats: stats(1600), Server: serverFixture(start, false)},
			{Name: "put conns=1 clients=10 iteration=2", Conns: 1, Clients: 10, Iteration: 2, Start: start, Stats: stats(1700), Server: serverFixture(start, true)},
		},
		Summaries: []result.Summary{{Name: "put conns=1 clients=10", Conns: 1, Clients: 10, Iterations: 2,
			ThroughputRPS: result.MeanSD{Mean: 1650, Stddev: 70.71}, P50: result.MeanSD{Mean: 0.006}, P99: result.MeanSD{Mean: 0.0109}, Mean: result.MeanSD{Mean: 0.006005}}},
	}
}

// serverFixture is what three members' metrics said during a run; with
// killed, the third was down from the start (every scrape refused).
func serverFixture(start time.Time, killed bool) *result.Server {
	point := func(sec int64, leader bool) result.ServerPoint {
		return result.ServerPoint{UnixMillis: start.Add(time.Duration(sec) * time.Second).UnixMilli(), WALFsyncP99: 0.0021, HasLeader: true, IsLeader: leader, CPUCores: 0.4}
	}
	member := func(name string, leader bool, cpu float64) result.MemberSeries {
		return result.MemberSeries{Name: name, MetricsURL: "http://127.0.0.1:2381",
			Summary: result.ServerSummary{WALFsyncP50: 0.0012, WALFsyncP99: 0.00214, WALFsyncs: 600, BackendCommitP99: 0.0047, LeaderChanges: 0,
				SlowApplies: 2, CPUCoresMean: cpu, CPUCoresMax: cpu * 1.5, RSSMaxBytes: 61.3 * (1 << 20), DiskWriteBytes: 3.2e6 * 0.625,
				GRPCRequests: 1000, NetReceiveBytes: 1e6, NetSendBytes: 2e6},
			Points: []result.ServerPoint{point(1, leader)}}
	}
	srv := &result.Server{IntervalSeconds: 1, EtcdVersion: "3.6.16",
		Members: []result.MemberSeries{member("m1", true, 0.52), member("m2", false, 0.31), member("m3", false, 0.3)}}
	if killed {
		srv.Members[2] = result.MemberSeries{Name: "m3", MetricsURL: "http://127.0.0.1:2387", ScrapeErrors: 2,
			FirstError: "cannot scrape http://127.0.0.1:2387/metrics: connection refused"}
	}
	return srv
}

// TestServerTextWidth: the server block stays within 120 columns with
// long member names (a live cluster's host:port), and runs without series
// print none.
func TestServerTextWidth(t *testing.T) {
	doc := fixture(t)
	for i := range doc.Runs[0].Server.Members {
		doc.Runs[0].Server.Members[i].Name = "etcd-member-0.etcd.kube-system.svc.cluster.local:2379"
	}
	out := serverText(doc)
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > TermWidth {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	if !strings.Contains(out, "Server (per member) during put conns=1 clients=10 iteration=2") {
		t.Errorf("no block for the second run:\n%s", out)
	}
	doc.Runs[0].Server, doc.Runs[1].Server = nil, nil
	if out := serverText(doc); out != "" {
		t.Errorf("a block without series: %q", out)
	}
}

// golden checks got against testdata/name (-update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

func TestBenchTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := BenchText(&b, fixture(t), TextOptions{Sample: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench_iterations.txt", b.Bytes())
	one := fixture(t)
	one.Runs = one.Runs[:1]
	one.Environment.LocalCluster = true // disk writes from /proc
	b.Reset()
	if err := BenchText(&b, one, TextOptions{Precise: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench_single_precise.txt", b.Bytes())
}

func TestBenchCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := BenchCSV(&b, fixture(t)); err != nil {
		t.Fatal(err)
	}
	golden(t, "bench.csv", b.Bytes())
}

// TestJSONRoundTrip writes and reads a document and checks that what matters
// survived, and that bad input is refused in one line.
func TestJSONRoundTrip(t *testing.T) {
	doc := fixture(t)
	var b bytes.Buffer
	if err := result.Write(&b, doc); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if back.Runs[1].Latency.P999 != 0.011 || back.Runs[1].ThroughputRPS != 1700 || back.Summaries[0].ThroughputRPS.Stddev != 70.71 {
		t.Fatalf("round trip lost data: %+v", back.Runs[1])
	}
	h, err := hdrhistogram.Decode([]byte(back.Runs[0].Histogram))
	if err != nil || h.TotalCount() != 1000 {
		t.Fatalf("histogram: %v %d", err, h.TotalCount())
	}
	for _, bad := range []string{"", "{", `{"schema_version": 99}`, `{"schema_version": 0}`} {
		if _, err := result.Read(bytes.NewBufferString(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestDiskTextGolden(t *testing.T) {
	lat := &result.DiskLatency{Min: 0.0003, Mean: 0.0021, Stddev: 0.0009, Max: 0.268}
	for i, p := range []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99} {
		lat.Percentiles = append(lat.Percentiles, result.Percentile{P: p, Seconds: 0.0004 * float64(i+1)})
	}
	lat.Percentiles[12].Seconds = 0.0125 // p99 over the line
	doc := &result.Document{SchemaVersion: 1, Kind: result.KindDisk,
		Disk: &result.Disk{Profile: "etcd", Dir: "/var/lib/etcd", Filesystem: "xfs", Device: "sda (/dev/sda1; rotational: yes, write cache: write back)",
			Equivalent: "fio --name=etcdlab --directory=/var/lib/etcd --rw=write --ioengine=sync --fdatasync=1 --size=23068672 --bs=2300",
			Jobs: []result.DiskJob{{Name: "sequential fdatasync", BlockSize: 2300, Sync: "fdatasync", QueueDepth: 1, Ops: 10029, WriteOps: 10029,
				Bytes: 23066700, RuntimeSeconds: 40.1, IOPS: 250.1, WriteIOPS: 250.1, BandwidthBytesS: 575229, SyncLatency: lat, IOLatency: lat}},
			Warnings: []string{"an example warning"}},
		Verdicts: []result.Verdict{
			judge.Value(judge.DiskFsyncP99, 0.0125, units.Seconds),
			judge.Value(judge.DiskFsyncP999, 0.0060, units.Seconds),
			judge.IOPSTier(250),
		},
		Overall: "FAIL"}
	var b bytes.Buffer
	if err := DiskText(&b, doc, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	golden(t, "disk.txt", b.Bytes())
	// Within 120 columns, but for the fio line, which is never wrapped so
	// that it can be copied; every source is in a note.
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > TermWidth && !strings.HasPrefix(l, "equivalent: fio ") {
			t.Errorf("a line of %d columns: %s", n, l)
		}
	}
	for _, v := range doc.Verdicts {
		if !strings.Contains(b.String(), "] "+v.Source+"\n") {
			t.Errorf("source %q is in no note", v.Source)
		}
	}
}
