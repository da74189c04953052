package metrics

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/prometheus/common/expfmt"
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

// TestDelimited: the delimited protobuf path keeps what the text path
// keeps, and refuses what is not Prometheus protobuf or not etcd's.
func TestDelimited(t *testing.T) {
	t.Parallel()
	full, err := Parse("x", time.Now(), strings.NewReader(filtered))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeProtoDelim))
	for _, name := range []string{"etcd_server_has_leader", "etcd_disk_wal_fsync_duration_seconds", "go_goroutines", "grpc_server_handled_total"} {
		if err := enc.Encode(full.Families[name]); err != nil {
			t.Fatal(err)
		}
	}
	sc := NewScraper(nil, []Name{WALFsyncDuration, GRPCHandled}, []Name{GRPCHandled})
	fromProto, err := sc.parseDelimited("x", time.Now(), b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := sc.Parse("x", time.Now(), []byte(filtered))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Snapshot{fromProto, fromText} {
		if len(s.Families) != 3 || len(s.Families[string(GRPCHandled)].Metric) != 1 {
			t.Errorf("families %v", s.Families)
		}
	}
	dp, _ := Deltas(nil, fromProto, WALFsyncDuration)
	dt, _ := Deltas(nil, fromText, WALFsyncDuration)
	if !reflect.DeepEqual(dp, dt) {
		t.Errorf("fsync buckets %v from protobuf, %v from text", dp, dt)
	}
	where := map[string]string{GRPCTypeLabel: "unary"}
	if p, x := fromProto.SumBy(GRPCHandled, GRPCCodeLabel, where), fromText.SumBy(GRPCHandled, GRPCCodeLabel, where); !reflect.DeepEqual(p, x) {
		t.Errorf("by code %v from protobuf, %v from text", p, x)
	}
	for _, bad := range [][]byte{{0xff}, {0x05, 0x0a}, b.Bytes()[:b.Len()-3]} {
		if _, err := sc.parseDelimited("x", time.Now(), bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%x: %v", bad, err)
		}
	}
	var other bytes.Buffer
	enc = expfmt.NewEncoder(&other, expfmt.NewFormat(expfmt.TypeProtoDelim))
	_ = enc.Encode(full.Families["go_goroutines"])
	if _, err := sc.parseDelimited("x", time.Now(), other.Bytes()); err == nil || !strings.Contains(err.Error(), "not etcd's") {
		t.Errorf("not etcd's: %v", err)
	}
}

// TestScraperRealMember: what a Scraper reads from a real member (in
// protobuf) is what a full Scrape reads (in text), for the families it
// keeps.
func TestScraperRealMember(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{})
	url := c.State().MetricsURLs[0]
	if _, format, err := fetch(context.Background(), http.DefaultClient, url+"/metrics", acceptProto(), 3*time.Second); err != nil || format.FormatType() != expfmt.TypeProtoDelim {
		t.Fatalf("etcd answered %q (%v), not delimited protobuf", format, err)
	}
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
