package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

func bench(rps, p50, p99 float64, sd float64, iters int) *result.Document {
	return &result.Document{Kind: result.KindBench, Summaries: []result.Summary{{
		Name: "put conns=100 clients=1000", Conns: 100, Clients: 1000, Iterations: iters,
		ThroughputRPS: result.MeanSD{Mean: rps, Stddev: sd}, P50: result.MeanSD{Mean: p50, Stddev: p50 / 100},
		P99: result.MeanSD{Mean: p99}, Mean: result.MeanSD{Mean: p50},
	}}}
}

func TestCompareBench(t *testing.T) {
	t.Parallel()
	// The Graviton article's shape: M5 as base, M6g faster.
	m5 := result.Named{Name: "m5.json", Doc: bench(40000, 0.020, 0.050, 500, 20)}
	m6g := result.Named{Name: "m6g.json", Doc: bench(46000, 0.017, 0.060, 500, 20)}
	cs, err := Compare(m5, m6g)
	if err != nil {
		t.Fatal(err)
	}
	rows := cs[0].Rows
	for _, tt := range []struct {
		metric string
		pct    float64
		better int
		sig    bool
	}{
		{"throughput", 15, 1, true},   // up is better
		{"latency p50", -15, 1, true}, // down is better
		{"latency p99", 20, -1, false},
	} {
		var r *Row
		for i := range rows {
			if rows[i].Metric == tt.metric {
				r = &rows[i]
			}
		}
		if r == nil || math.Abs(r.ChangePct-tt.pct) > 1e-9 || r.Better != tt.better {
			t.Errorf("%s: %+v, want %+.0f%% better=%d", tt.metric, r, tt.pct, tt.better)
			continue
		}
		if tt.metric != "latency p99" && (r.Significant == nil || *r.Significant != tt.sig) {
			t.Errorf("%s: significance %v", tt.metric, r.Significant)
		}
	}
	// A difference inside the spread is not significant.
	noisy := result.Named{Name: "noisy.json", Doc: bench(40300, 0.020, 0.050, 2000, 20)}
	cs, _ = Compare(m5, noisy)
	if s := cs[0].Rows[0].Significant; s == nil || *s {
		t.Errorf("0.75%% change with a 2000 req/s spread marked significant")
	}
	// No iterations: no significance claimed.
	one := result.Named{Name: "one.json", Doc: bench(42000, 0.02, 0.05, 0, 1)}
	cs, _ = Compare(m5, one)
	if cs[0].Rows[0].Significant != nil {
		t.Error("significance claimed without iterations")
	}
}

func TestCompareRefusesMixedKinds(t *testing.T) {
	t.Parallel()
	disk := &result.Document{Kind: result.KindDisk, Disk: &result.Disk{}}
	_, err := Compare(result.Named{Name: "a.json", Doc: bench(1, 1, 1, 0, 1)}, result.Named{Name: "d.json", Doc: disk})
	if err == nil || !strings.Contains(err.Error(), "cannot compare a bench result (a.json) with a disk result (d.json)") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Compare(result.Named{Name: "a.json", Doc: bench(1, 1, 1, 0, 1)}); err == nil {
		t.Fatal("compare with nothing accepted")
	}
}

func TestCompareDisk(t *testing.T) {
	t.Parallel()
	lat := func(p50, p99 float64) *result.DiskLatency {
		return &result.DiskLatency{Percentiles: []result.Percentile{{P: 50, Seconds: p50}, {P: 99, Seconds: p99}, {P: 99.9, Seconds: p99}}}
	}
	d := func(iops, p50, p99 float64) *result.Document {
		return &result.Document{Kind: result.KindDisk, Disk: &result.Disk{Jobs: []result.DiskJob{{Name: "sequential fdatasync", Sync: "fdatasync", IOPS: iops, SyncLatency: lat(p50, p99)}}}}
	}
	cs, err := Compare(result.Named{Name: "hdd.json", Doc: d(24, 0.040, 0.268)}, result.Named{Name: "ssd.json", Doc: d(2400, 0.0004, 0.002)})
	if err != nil {
		t.Fatal(err)
	}
	r := cs[0].Rows
	if r[0].Metric != "IOPS" || r[0].ChangePct != 9900 || r[0].Better != 1 || r[2].Better != 1 || r[2].ChangePct > -99 {
		t.Fatalf("rows %+v", r)
	}
}
