package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
)

const filtered = `# HELP etcd_server_has_leader x
# TYPE etcd_server_has_leader gauge
etcd_server_has_leader 1
# HELP etcd_disk_wal_fsync_duration_seconds x
# TYPE etcd_disk_wal_fsync_duration_seconds histogram
etcd_disk_wal_fsync_duration_seconds_bucket{le="0.001"} 0
etcd_disk_wal_fsync_duration_seconds_bucket{le="+Inf"} 5
etcd_disk_wal_fsync_duration_seconds_sum 0.01
etcd_disk_wal_fsync_duration_seconds_count 5
# HELP go_goroutines x
# TYPE go_goroutines gauge
go_goroutines 42
# HELP grpc_server_handled_total x
# TYPE grpc_server_handled_total counter
grpc_server_handled_total{grpc_code="OK",grpc_method="Put",grpc_type="unary"} 7
grpc_server_handled_total{grpc_code="Unavailable",grpc_method="Put",grpc_type="unary"} 0
grpc_server_handled_total{grpc_code="OK",grpc_method="Range",grpc_type="unary"} 0
`

// TestScraperFilter: a Scraper parses only the families it keeps (a
// histogram's bucket at 0 included), drops the zero series of sparse
// families, and reuses one connection across scrapes.
func TestScraperFilter(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			t.Errorf("asked for %s", r.Header.Get("Accept-Encoding"))
		}
		fmt.Fprint(w, filtered)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	sc := NewScraper(nil, []Name{WALFsyncDuration, GRPCHandled}, []Name{GRPCHandled})
	defer sc.Close()
	var s *Snapshot
	for range 3 {
		var err error
		if s, err = sc.Scrape(context.Background(), srv.URL, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("3 scrapes opened %d connections", n)
	}
	if _, ok := s.Families["go_goroutines"]; ok {
		t.Error("go_goroutines kept")
	}
	if d, ok := Deltas(nil, s, WALFsyncDuration); !ok || len(d) != 2 || d[0.001] != 0 {
		t.Errorf("fsync buckets %v %v: the bucket at 0 must stay", d, ok)
	}
	if n := len(s.Families[string(GRPCHandled)].Metric); n != 1 {
		t.Errorf("%d grpc series kept, want the one not at 0", n)
	}
	if got := s.SumBy(GRPCHandled, GRPCCodeLabel, map[string]string{GRPCTypeLabel: "unary"}); !reflect.DeepEqual(got, map[string]float64{"OK": 7}) {
		t.Errorf("by code %v", got)
	}
}

// TestScraperRealMember: what a Scraper reads from a real member is what
// a full Scrape reads, for the families it keeps.
func TestScraperRealMember(t *testing.T) {
	t.Parallel()
	c, err := cluster.Start(context.Background(), cluster.Options{Members: 1, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop() }()
	url := c.State().MetricsURLs[0]
	sc := NewScraper(nil, []Name{WALFsyncDuration, ServerVersion, GRPCHandled, DBTotalSize}, []Name{GRPCHandled})
	defer sc.Close()
	part, err := sc.Scrape(context.Background(), url, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Scrape(context.Background(), url, nil, 3*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Families) != 5 || len(full.Families) < 100 {
		t.Errorf("%d families kept of %d", len(part.Families), len(full.Families))
	}
	pf, _ := Deltas(nil, part, WALFsyncDuration)
	ff, _ := Deltas(nil, full, WALFsyncDuration)
	if !reflect.DeepEqual(pf, ff) || len(pf) != 15 {
		t.Errorf("fsync buckets %v, full %v", pf, ff)
	}
	if v := part.LabelValues(ServerVersion, ServerVersionLabel); len(v) != 1 || v[0] == "" || !reflect.DeepEqual(v, full.LabelValues(ServerVersion, ServerVersionLabel)) {
		t.Errorf("version %q", v)
	}
	where := map[string]string{GRPCTypeLabel: "unary"}
	if p, f := part.SumBy(GRPCHandled, GRPCCodeLabel, where), full.SumBy(GRPCHandled, GRPCCodeLabel, where); p["OK"] == 0 {
		t.Errorf("no unary RPC: %v", p)
	} else {
		for code, v := range f {
			if v != p[code] && !(code == "OK" && v >= p[code]) { // the full scrape came later
				t.Errorf("%s: %g, full %g", code, p[code], v)
			}
		}
	}
}
