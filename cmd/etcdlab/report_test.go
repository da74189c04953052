package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

func TestReportAndCompareCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bench := func(rps float64) string {
		var b strings.Builder
		_ = result.Write(&b, &result.Document{SchemaVersion: 1, Kind: result.KindBench, Runs: []result.Run{{Name: "put", Conns: 1, Clients: 1,
			Stats: result.Stats{Requests: 10, ThroughputRPS: rps, Latency: result.Latency{P50: 0.001, P99: 0.002, Mean: 0.001}}}}})
		return b.String()
	}
	base, other := write("base.json", bench(1000)), write("other.json", bench(1250))
	disk := write("disk.json", `{"schema_version":1,"kind":"disk","disk":{"jobs":[]}}`)
	bad := map[string]string{
		"malformed":  write("malformed.json", "this is not json"),
		"truncated":  write("truncated.json", bench(1)[:40]),
		"future":     write("future.json", `{"schema_version": 7, "kind": "bench"}`),
		"empty file": write("empty.json", ""),
	}
	code, out, stderr := runCLI(context.Background(), "compare", base, other)
	if code != 0 || !strings.Contains(out, "+25.0%") || !strings.Contains(out, "better") {
		t.Fatalf("compare: %d %s %s", code, out, stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", base, disk}, "cannot compare a bench result (base.json) with a disk result (disk.json)"},
		{[]string{"compare", base}, "needs a base and at least one other"},
		{[]string{"report"}, "no result files given"},
		{[]string{"report", bad["malformed"], "-o", filepath.Join(dir, "r.html")}, "malformed.json: not a result document"},
		{[]string{"report", bad["truncated"], "-o", filepath.Join(dir, "r.html")}, "truncated.json: not a result document"},
		{[]string{"report", bad["future"], "-o", filepath.Join(dir, "r.html")}, "future.json: unknown schema_version 7"},
		{[]string{"report", bad["empty file"], "-o", filepath.Join(dir, "r.html")}, "empty.json: empty result document"},
		{[]string{"report", filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{"report", base, "-o", filepath.Join(dir, "r.pdf")}, "-o must end in .html or .md"},
	} {
		code, _, stderr := runCLI(context.Background(), tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, %q; want 2 with %q", tt.args[1:], code, stderr, tt.want)
		}
		oneLine(t, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a failed report left a file")
	}
	html := filepath.Join(dir, "ok.html")
	if code, _, stderr := runCLI(context.Background(), "report", base, other, "-o", html); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "other.json against base.json") {
		t.Fatalf("report html: %v", err)
	}
	code, md, _ := runCLI(context.Background(), "report", base, "-o", "-")
	if code != 0 || !strings.HasPrefix(md, "## bench result: base.json") {
		t.Fatalf("markdown to stdout: %q", md)
	}
	// A check report lists judge's thresholds, which the CLI passes to
	// render (render imports no judge package).
	check := write("check.json", `{"schema_version":1,"kind":"check","check":{"mode":"local"}}`)
	code, md, stderr = runCLI(context.Background(), "report", check, "-o", "-")
	if code != 0 || !strings.Contains(md, "### Thresholds") || !strings.Contains(md, "| server.wal_fsync.p99 |") {
		t.Fatalf("check report: %d %q %s", code, md, stderr)
	}
}

// TestExperimentReportAndCompareCLI: two machines' results of the same
// experiment compare cell by cell, and an experiment result renders its
// own report section.
func TestExperimentReportAndCompareCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exp := func(name string, scale float64, cells ...string) string {
		doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Environment: result.Environment{CPUs: 2, LocalCluster: true},
			Experiment: &result.Experiment{Name: "leader-vs-all"}}
		for _, id := range cells {
			c := result.Cell{ID: id, Setup: "3-members", Workload: id, Status: result.CellOK, Params: map[string]string{"clients": "1000"}}
			for it := 1; it <= 3; it++ {
				c.Runs = append(c.Runs, result.Run{Name: id, Conns: 100, Clients: 1000, Iteration: it, Stats: result.Stats{Requests: 1000, DurationSeconds: 1,
					ThroughputRPS: 1000 * scale * (1 + 0.01*float64(it)), Latency: result.Latency{P50: 0.01 / scale, P99: 0.02 / scale, Mean: 0.011 / scale}}})
			}
			doc.Experiment.Cells = append(doc.Experiment.Cells, c)
		}
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := result.Write(f, doc); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := exp("m5.json", 1, "leader", "all"), exp("m6g.json", 1.2, "leader")
	code, out, stderr := runCLI(context.Background(), "compare", a, b)
	if code != 0 || !strings.Contains(out, "m6g.json against m5.json (experiment)") || !strings.Contains(out, "| leader | throughput") ||
		!strings.Contains(out, "+20.0%") || !strings.Contains(out, "not compared: all: only in the base") {
		t.Fatalf("compare: %d %s %s", code, out, stderr)
	}
	html := filepath.Join(dir, "exp.html")
	if code, _, stderr := runCLI(context.Background(), "report", a, "-o", html); code != 0 {
		t.Fatalf("report: %s", stderr)
	}
	page, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(page), "<h3>Bottlenecks</h3>") || !strings.Contains(string(page), `id="d0-exp-throughput"`) ||
		!strings.Contains(string(page), "The bottleneck statements were computed when this report was made: the result has none.") {
		t.Fatalf("experiment report (statements computed for a result without them): %v\n%s", err, page)
	}
}
