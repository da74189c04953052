package render

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// sweepFixture is a client sweep (4, 16, 64 clients, 2 iterations each)
// with histograms and time series, as bench writes it.
func sweepFixture(t *testing.T, scale float64) *result.Document {
	t.Helper()
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	doc := &result.Document{SchemaVersion: 1, Kind: result.KindBench, CreatedAt: start,
		Environment: result.Environment{Etcdlab: "test", CPUs: 2, MemoryBytes: 24 << 30, OS: "linux", Arch: "amd64", Kernel: "6.18", ServerVersion: "3.6.16", Members: 3, LocalCluster: true, DataDir: "/data", Filesystem: "ext4"},
		Bench:       &result.BenchConfig{Command: "put", Mode: "closed", Conns: []int{4}, Clients: []int{4, 16, 64}, Total: 2000, Iterations: 2}}
	for _, clients := range []int{4, 16, 64} {
		var rps []float64
		var p50s, p99s []float64
		for it := 1; it <= 2; it++ {
			base := float64(clients) * 250 * scale // µs
			h := hdrhistogram.New(1, 60_000_000, 3)
			for i := int64(0); i < 2000; i++ {
				_ = h.RecordValue(int64(base) + i*int64(clients)/4)
			}
			enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			r := 4000 / scale * float64(clients) / float64(clients+8) * (1 + 0.01*float64(it))
			run := result.Run{Name: "put conns=4 clients=" + itoa(clients) + " iteration=" + itoa(it), Conns: 4, Clients: clients, Iteration: it, Start: start,
				Stats: result.Stats{Requests: 2000, Errors: map[string]int64{}, DurationSeconds: 2000 / r, ThroughputRPS: r, Histogram: string(enc),
					Latency: result.Latency{Min: base / 1e6, Mean: float64(h.Mean()) / 1e6, Max: float64(h.Max()) / 1e6,
						P50: float64(h.ValueAtPercentile(50)) / 1e6, P99: float64(h.ValueAtPercentile(99)) / 1e6, P999: float64(h.ValueAtPercentile(99.9)) / 1e6}}}
			for s := int64(0); s < 3; s++ {
				run.TimeSeries = append(run.TimeSeries, result.Second{UnixSecond: 1795800000 + s, Requests: int64(r) - s*10, Mean: run.Latency.Mean * (1 + 0.1*float64(s)), Min: run.Latency.Min, Max: run.Latency.Max})
			}
			doc.Runs = append(doc.Runs, run)
			rps, p50s, p99s = append(rps, r), append(p50s, run.Latency.P50), append(p99s, run.Latency.P99)
		}
		doc.Summaries = append(doc.Summaries, result.Summary{Name: "put conns=4 clients=" + itoa(clients), Conns: 4, Clients: clients, Iterations: 2,
			ThroughputRPS: meanSD(rps), P50: meanSD(p50s), P99: meanSD(p99s), Mean: meanSD(p50s)})
	}
	return doc
}

func meanSD(xs []float64) result.MeanSD {
	m := (xs[0] + xs[1]) / 2
	d := xs[0] - m
	return result.MeanSD{Mean: m, Stddev: 1.41421356 * abs(d)}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func itoa(i int) string { return time.Duration(i).String()[:len(time.Duration(i).String())-2] }

// diskFixture is a disk result with the full suite.
func diskFixture() *result.Document {
	lat := &result.DiskLatency{Min: 0.0001, Mean: 0.0004, Stddev: 0.0001, Max: 0.004}
	for i, p := range []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99} {
		lat.Percentiles = append(lat.Percentiles, result.Percentile{P: p, Seconds: 0.0002 * (1 + float64(i)*0.15)})
	}
	return &result.Document{SchemaVersion: 1, Kind: result.KindDisk, CreatedAt: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
		Environment: result.Environment{Etcdlab: "test", CPUs: 2, MemoryBytes: 24 << 30, OS: "linux", Arch: "amd64", Kernel: "6.18", DataDir: "/var/lib/etcd", Filesystem: "ext4"},
		Disk: &result.Disk{Profile: "etcd", Dir: "/var/lib/etcd", Filesystem: "ext4", Device: "vda", Equivalent: "fio --rw=write ...",
			Jobs: []result.DiskJob{
				{Name: "sequential fdatasync", BlockSize: 2300, Sync: "fdatasync", QueueDepth: 1, Ops: 10029, WriteOps: 10029, IOPS: 4500, BandwidthBytesS: 10 << 20, SyncLatency: lat, IOLatency: lat},
				{Name: "random read 4 KiB", BlockSize: 4096, QueueDepth: 4, Direct: true, Ops: 230000, ReadOps: 230000, IOPS: 28800, ReadIOPS: 28800, IOLatency: lat},
				{Name: "mixed 70/30 read/write 4 KiB", BlockSize: 4096, QueueDepth: 1, Direct: true, Ops: 106000, ReadOps: 74000, WriteOps: 32000, IOPS: 13300, ReadIOPS: 9300, WriteIOPS: 4000, IOLatency: lat},
			},
			Suite: "balanced: 4500 fsync IOPS, 28800 random read IOPS"},
		Verdicts: []result.Verdict{{ID: string(judge.DiskFsyncP99), What: "fdatasync p99", Display: "556.0 µs", Threshold: "< 10.00 ms", Source: "etcd FAQ; OpenShift etcd docs", Status: "PASS"}},
		Overall:  "PASS"}
}

func named(name string, d *result.Document) result.Named { return result.Named{Name: name, Doc: d} }

// checkFixture is a local check: disk probe, two levels, three members.
func checkFixture(t *testing.T) *result.Document {
	t.Helper()
	sweep := sweepFixture(t, 1)
	d := diskFixture()
	doc := &result.Document{SchemaVersion: 1, Kind: result.KindCheck, CreatedAt: sweep.CreatedAt, Environment: sweep.Environment,
		Disk: d.Disk, Runs: sweep.Runs[:2], Verdicts: append(d.Verdicts, result.Verdict{ID: string(judge.LoadCapacity), What: "highest check perf level sustained", Display: "m", Status: "PASS", Source: "etcdctl check perf"}),
		Overall: "PASS",
		Check: &result.Check{Mode: "local", Highest: "s",
			Levels:  []result.CheckLevel{{Name: "s", Rate: 150, Clients: 50, Passed: true, WalFsyncP99: 0.002}, {Name: "m", Rate: 1000, Clients: 200, Why: []string{"slowest request took 0.6 s"}}},
			Members: []result.MemberCheck{{Name: "m1", WalFsyncP99: 0.002, BackendCommitP99: 0.004, CPUCores: 0.3, RSSBytes: 50 << 20}, {Name: "m2", Error: "m2: cannot scrape"}},
			Connect: []result.Connect{{Endpoint: "http://127.0.0.1:2379", Seconds: 0.0001}},
			Floor:   &result.Floor{FsyncSeconds: 0.0002, RTTSeconds: 0.00003, FloorSeconds: 0.00023, ProbeP50: 0.0014, RatioToFloor: 6.1}}}
	return doc
}
