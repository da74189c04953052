package result

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestMetrics holds the metrics table complete: every MetricName constant
// has one row, every row a constant, a name for people, a unit, a
// direction and an extractor, and the names experiment files may publish
// stay those (and in that order) docs/experiments.md lists.
func TestMetrics(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "metrics.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[MetricName]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "MetricName" {
				continue
			}
			v, err := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			consts[MetricName(v)] = true
		}
	}
	seen := map[string]bool{}
	for _, m := range Metrics() {
		if !consts[m.Name] {
			t.Errorf("row %q has no constant", m.Name)
		}
		delete(consts, m.Name)
		for _, n := range m.Names() {
			if seen[n] {
				t.Errorf("%q names two rows", n)
			}
			seen[n] = true
		}
		if m.What == "" || m.Unit == "" || m.Better == 0 || m.Of == nil {
			t.Errorf("incomplete row %+v", m)
		}
	}
	for n := range consts {
		t.Errorf("constant %q has no row", n)
	}
	want := []string{
		"throughput_rps", "total_seconds", "avg_seconds",
		"p10_seconds", "p25_seconds", "p50_seconds", "p75_seconds", "p90_seconds", "p95_seconds", "p99_seconds", "p999_seconds",
		"fsync_p99_seconds", "fsync_iops",
		"wal_fsync_p99_seconds", "backend_commit_p99_seconds", "peer_rtt_p99_seconds",
		"peer_rtt_lowest_bucket_seconds", "peer_rtt_highest_bucket_seconds",
		"member_cpu_cores", "slow_applies", "slow_applies_per_member_run", "slow_applies_member_run_max",
		"time_to_ready_seconds", "kube_etcd_request_lowest_bucket_seconds", "kube_etcd_request_highest_bucket_seconds",
	}
	if got := PublishedMetrics(); !slices.Equal(got, want) {
		t.Errorf("PublishedMetrics() = %v, want %v", got, want)
	}
	if m, ok := MetricOf("mean_seconds"); !ok || m.Name != MetricLatencyMean {
		t.Errorf("mean_seconds: %q, %v", m.Name, ok)
	}
}
