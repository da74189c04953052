package metrics

import (
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// FuzzParse feeds Parse metrics text: it never panics, its errors are one
// line, and on a snapshot it accepts every histogram's quantiles are NaN
// (nothing observed) or, where the buckets are cumulative, lie within its
// bounds and in order (p50 ≤ p99), the increase from a snapshot to itself is
// nothing, and RankBucket's bucket holds its rank.
func FuzzParse(f *testing.F) {
	const head = "# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n"
	for _, s := range []string{
		head,
		head + `# HELP etcd_disk_wal_fsync_duration_seconds The latency distributions of fsync called by WAL.
# TYPE etcd_disk_wal_fsync_duration_seconds histogram
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 2
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} 10
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.004"} 12
etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} 13
etcd_disk_wal_fsync_duration_seconds_sum 0.03
etcd_disk_wal_fsync_duration_seconds_count 13
`,
		head + `# TYPE etcd_network_peer_round_trip_time_seconds histogram
etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="0.0001"} 0
etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="0.0002"} 3
etcd_network_peer_round_trip_time_seconds_bucket{To="a",le="+Inf"} 3
etcd_network_peer_round_trip_time_seconds_sum{To="a"} 0.0005
etcd_network_peer_round_trip_time_seconds_count{To="a"} 3
etcd_network_peer_round_trip_time_seconds_bucket{To="b",le="-1"} 1
etcd_network_peer_round_trip_time_seconds_bucket{To="b",le="+Inf"} 4
etcd_network_peer_round_trip_time_seconds_count{To="b"} 4
`,
		head + "# TYPE grpc_server_handled_total counter\ngrpc_server_handled_total{grpc_code=\"OK\",grpc_type=\"unary\"} 42\n# TYPE etcd_server_version gauge\netcd_server_version{server_version=\"3.6.16\"} 1\n",
		head + "# TYPE h histogram\nh_bucket{le=\"1\"} 5\nh_bucket{le=\"2\"} 3\nh_count 4\n",
		head + "untyped_metric NaN 1714644672000\n",
		"<html><body>dashboard</body></html>",
		"# TYPE etcd_server_has_leader gauge\netcd_server_has_leader{",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("http://m1/metrics", time.Unix(0, 0), strings.NewReader(text))
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		for name, fam := range s.Families {
			if fam.GetType() != dto.MetricType_HISTOGRAM {
				continue
			}
			checkHistogram(t, s, Name(name))
		}
	})
}

// checkHistogram checks name's quantiles and rank buckets on s.
func checkHistogram(t *testing.T, s *Snapshot, name Name) {
	t.Helper()
	cum, ok := Deltas(nil, s, name)
	if !ok {
		t.Fatalf("%s: no buckets", name)
	}
	lo, hi := math.Min(0, lowest(cum)), highestFinite(cum)
	var prev float64
	for i, q := range []float64{0.5, 0.99} {
		v, n := Quantile(q, nil, s, name)
		if n != cum[math.Inf(1)] && !(math.IsNaN(n) && math.IsNaN(cum[math.Inf(1)])) {
			t.Fatalf("%s: %v observations, +Inf bucket %v", name, n, cum[math.Inf(1)])
		}
		if math.IsNaN(v) {
			continue
		}
		if cumulative(cum) && !hasNaN(cum) && (v < lo || v > hi) {
			t.Fatalf("%s: p%v = %v outside the bounds [%v, %v] of %v", name, q*100, v, lo, hi, cum)
		}
		if i > 0 && cumulative(cum) && !hasNaN(cum) && !math.IsNaN(prev) && v < prev {
			t.Fatalf("%s: p99 %v below p50 %v in %v", name, v, prev, cum)
		}
		prev = v
	}
	if v, n := Quantile(0.99, s, s, name); !math.IsNaN(v) || n != 0 {
		t.Fatalf("%s: from a snapshot to itself: p99 %v of %v observations", name, v, n)
	}
	for _, k := range []float64{1, cum[math.Inf(1)] / 2, cum[math.Inf(1)]} {
		lower, upper, ok := RankBucket(k, cum)
		if !ok {
			continue
		}
		if !(lower <= upper) && !math.IsNaN(upper) && !math.IsNaN(lower) {
			t.Fatalf("%s: rank %v in bucket (%v, %v]", name, k, lower, upper)
		}
	}
}

func lowest(cum map[float64]float64) float64 {
	v := math.Inf(1)
	for le := range cum {
		v = math.Min(v, le)
	}
	return v
}

func highestFinite(cum map[float64]float64) float64 {
	v := math.Inf(-1)
	for le := range cum {
		if !math.IsInf(le, 1) {
			v = math.Max(v, le)
		}
	}
	return v
}

func hasNaN(cum map[float64]float64) bool {
	for le, c := range cum {
		if math.IsNaN(le) || math.IsNaN(c) {
			return true
		}
	}
	return false
}

// cumulative reports whether counts never fall as bounds rise.
func cumulative(cum map[float64]float64) bool {
	bounds := make([]float64, 0, len(cum))
	for le := range cum {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	for i := 1; i < len(bounds); i++ {
		if cum[bounds[i]] < cum[bounds[i-1]] {
			return false
		}
	}
	return true
}
