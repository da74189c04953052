package metrics

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

// TestHistogramQuantile checks cases worked out by hand the way PromQL's
// histogram_quantile computes them.
func TestHistogramQuantile(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	// etcd's fsync buckets (1, 2, 4, 8, 16 ms...): 100 observations.
	b := map[float64]float64{0.001: 10, 0.002: 50, 0.004: 90, 0.008: 98, 0.016: 100, inf: 100}
	for _, tt := range []struct {
		q, want float64
	}{
		{0.5, 0.002},                    // rank 50 = exactly the 2 ms bucket's count
		{0.3, 0.001 + 0.001*(30-10)/40}, // inside (1, 2] ms
		{0.99, 0.008 + 0.008*(99-98)/2}, // inside (8, 16] ms: 12 ms
		{0.05, 0.001 * 5 / 10},          // lowest bucket starts at 0
		{1, 0.016},
	} {
		if got := HistogramQuantile(tt.q, b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("q=%g: %g, want %g", tt.q, got, tt.want)
		}
	}
	// A rank in +Inf returns the highest finite bound.
	if got := HistogramQuantile(0.99, map[float64]float64{0.1: 50, inf: 100}); got != 0.1 {
		t.Errorf("+Inf bucket: %g", got)
	}
	if !math.IsNaN(HistogramQuantile(0.5, map[float64]float64{0.1: 0, inf: 0})) {
		t.Error("no observations must be NaN")
	}
}

// TestUpperQuantile checks that a rank in the lowest bucket gives its
// upper bound (all the histogram knows), and that elsewhere it is PromQL's.
func TestUpperQuantile(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	tmpfs := map[float64]float64{0.001: 100, 0.002: 100, inf: 100} // every fsync under 1 ms
	b := map[float64]float64{0.001: 10, 0.002: 50, 0.004: 90, inf: 100}
	for _, tt := range []struct {
		name string
		q    float64
		cum  map[float64]float64
		want float64
	}{
		{"all in lowest bucket", 0.99, tmpfs, 0.001},
		{"rank in lowest bucket", 0.05, b, 0.001},
		{"rank above it", 0.3, b, 0.001 + 0.001*(30-10)/40},
		{"+Inf", 0.99, b, 0.004},
	} {
		if got := UpperQuantile(tt.q, tt.cum); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", tt.name, got, tt.want)
		}
	}
	if !math.IsNaN(UpperQuantile(0.5, map[float64]float64{0.001: 0, inf: 0})) {
		t.Error("no observations must be NaN")
	}
}

// TestRankBucket checks the bucket holding the k-th smallest observation,
// and that its lower edge never exceeds the sample quantile where the
// interpolated quantile does.
func TestRankBucket(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	// etcd's WAL fsync buckets, 100 observations: 10 in (0, 1 ms], 40 in
	// (1, 2], 40 in (2, 4], 8 in (4, 8], 2 in (8, 16].
	fsync := map[float64]float64{0.001: 10, 0.002: 50, 0.004: 90, 0.008: 98, 0.016: 100, inf: 100}
	for _, tt := range []struct {
		name         string
		k            float64
		cum          map[float64]float64
		lower, upper float64
		ok           bool
	}{
		{"first observation: lowest bucket, from 0", 1, fsync, 0, 0.001, true},
		{"last of the lowest bucket", 10, fsync, 0, 0.001, true},
		{"first of the next bucket", 11, fsync, 0.001, 0.002, true},
		{"median rank, exactly a bucket's count", 50, fsync, 0.001, 0.002, true},
		{"one past it", 51, fsync, 0.002, 0.004, true},
		{"the last observation", 100, fsync, 0.008, 0.016, true},
		{"a rank in +Inf starts at the highest finite bound", 60, map[float64]float64{0.1: 50, inf: 100}, 0.1, inf, true},
		{"a lowest bound at or below 0 starts at -Inf", 1, map[float64]float64{-1: 5, 1: 10, inf: 10}, math.Inf(-1), -1, true},
		{"rank 0", 0, fsync, 0, 0, false},
		{"rank past the observations", 101, fsync, 0, 0, false},
		{"no observations", 1, map[float64]float64{0.001: 0, inf: 0}, 0, 0, false},
		{"no +Inf bucket", 1, map[float64]float64{0.001: 5}, 0, 0, false},
		{"empty", 1, map[float64]float64{}, 0, 0, false},
	} {
		lower, upper, ok := RankBucket(tt.k, tt.cum)
		if ok != tt.ok || (ok && (lower != tt.lower || upper != tt.upper)) {
			t.Errorf("%s: (%g, %g] %v, want (%g, %g] %v", tt.name, lower, upper, ok, tt.lower, tt.upper, tt.ok)
		}
	}
	// Why not the interpolated quantile: 10 fsyncs at 0.9 ms and 90 at
	// 1.1 ms have a sample median of 1.1 ms, but histogram_quantile puts it
	// at 1.5 ms, above; the lower edge of its bucket, 1 ms, is below.
	cum := map[float64]float64{0.001: 10, 0.002: 100, inf: 100}
	if q := HistogramQuantile(0.5, cum); !(q > 0.0011) {
		t.Fatalf("interpolated median %g: the example no longer shows interpolation above the sample median", q)
	}
	if lower, _, ok := RankBucket(50, cum); !ok || lower > 0.0011 || lower != 0.001 {
		t.Errorf("lower edge %g %v, want 1 ms, below the sample median 1.1 ms", lower, ok)
	}
}

const sample = `# HELP etcd_server_has_leader x
# TYPE etcd_server_has_leader gauge
etcd_server_has_leader 1
# TYPE etcd_disk_wal_fsync_duration_seconds histogram
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} %d
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.002"} %d
etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} %d
etcd_disk_wal_fsync_duration_seconds_sum 0.1
etcd_disk_wal_fsync_duration_seconds_count %d
# TYPE etcd_server_leader_changes_seen_total counter
etcd_server_leader_changes_seen_total %d
`

func TestScrapeAndDeltas(t *testing.T) {
	t.Parallel()
	step := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			if step == 0 {
				fmt.Fprintf(w, sample, 10, 10, 10, 10, 1)
			} else {
				fmt.Fprintf(w, sample, 10, 60, 110, 110, 3) // +100: 0 in (0,1], 50 in (1,2], 50 above
			}
			step++
		case "/html/metrics":
			fmt.Fprint(w, "<html><body>hello</body></html>")
		case "/other/metrics":
			fmt.Fprint(w, "# TYPE up gauge\nup 1\n")
		}
	}))
	defer srv.Close()
	before, err := Scrape(context.Background(), srv.URL, nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	after, err := Scrape(context.Background(), srv.URL, nil, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	q, n := Quantile(0.25, before, after, WALFsyncDuration)
	if n != 100 || math.Abs(q-(0.001+0.001*25/50)) > 1e-12 {
		t.Errorf("p25 %g over %g observations", q, n)
	}
	if inc, ok := Increase(before, after, LeaderChanges); !ok || inc != 2 {
		t.Errorf("leader changes %g %v", inc, ok)
	}
	for path, want := range map[string]string{"/html": "does not serve Prometheus metrics", "/other": "not etcd's", "/missing": "not etcd's"} {
		_, err := Scrape(context.Background(), srv.URL+path+"/metrics", nil, time.Second)
		if err == nil || (!strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "HTTP")) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := Scrape(context.Background(), "http://127.0.0.1:1", nil, time.Second); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("refused: %v", err)
	}
}

// TestScrapeRealMember reads a real member's metrics before and after some
// writes and finds WAL fsyncs in between.
func TestScrapeRealMember(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{})
	url := c.State().MetricsURLs[0]
	before, err := Scrape(context.Background(), url, nil, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := cli.Put(ctx, fmt.Sprintf("k%d", i), "v")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	after, err := Scrape(context.Background(), url, nil, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p99, n := Quantile(0.99, before, after, WALFsyncDuration)
	if n < 20 || !(p99 > 0) {
		t.Fatalf("wal fsync p99 %g over %g observations", p99, n)
	}
	if rss, ok := after.Gauge(ProcessResidentMemory); !ok || rss <= 0 {
		t.Fatal("no RSS")
	}
}
