package render

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// perfData is perf-dash's input (kubernetes/perf-tests, perftype.PerfData:
// DataItems), which every --report-perfdash file must decode into.
type perfData struct {
	Version   string `json:"version"`
	DataItems []struct {
		Data   map[string]float64 `json:"data"`
		Unit   string             `json:"unit"`
		Labels map[string]string  `json:"labels"`
	} `json:"dataItems"`
}

// etcdReport is etcd benchmark v3.7's perfdashFormattedReport
// (pkg/report/perfdash.go), to compare a one-run file byte for byte.
type etcdReport struct {
	Version   string `json:"version"`
	DataItems []struct {
		Data struct {
			Perc50 float64 `json:"Perc50"`
			Perc90 float64 `json:"Perc90"`
			Perc99 float64 `json:"Perc99"`
		} `json:"data"`
		Labels struct {
			Operation string `json:"Operation"`
		} `json:"labels"`
		Unit string `json:"unit"`
	} `json:"dataItems"`
}

// etcdName is etcd benchmark v3.7's file name: op, then UTC RFC 3339.
var etcdName = regexp.MustCompile(`^EtcdAPI_benchmark_([a-z-]+)_(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\.json$`)

func latencyStats(p50, p90, p99 float64) result.Stats {
	return result.Stats{Requests: 100, Latency: result.Latency{P50: p50, P90: p90, P99: p99}}
}

func TestPerfdash(t *testing.T) {
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	one := func(cmd string, ops ...result.Op) *result.Document {
		return &result.Document{Kind: result.KindBench, Bench: &result.BenchConfig{Command: cmd}, Runs: []result.Run{{
			Conns: 1, Clients: 1, Iteration: 1, Start: start, End: start.Add(1500 * time.Millisecond),
			Stats: latencyStats(0.0012345, 0.0023456, 0.0098765), Ops: ops}}}
	}
	sweep := sweepFixture(t, 1)
	for i := range sweep.Runs {
		sweep.Runs[i].End = start.Add(time.Duration(i+1) * time.Second)
		sweep.Runs[i].Latency.P90 = sweep.Runs[i].Latency.P50 * 1.5
	}
	tests := []struct {
		name      string
		doc       *result.Document
		files     []string // op of each file, in order
		items     int      // data items per file
		stamp     string
		runLabels bool
	}{
		{"one put run is etcd's file", one("put"), []string{"put"}, 1, "2026-11-22T00:00:01Z", false},
		{"txn-mixed reports read and write", one("txn-mixed",
			result.Op{Name: "read", Stats: latencyStats(0.001, 0.002, 0.003)}, result.Op{Name: "write", Stats: latencyStats(0.004, 0.005, 0.006)}),
			[]string{"txn-mixed-read", "txn-mixed-write"}, 1, "2026-11-22T00:00:01Z", false},
		{"watch-latency reports put and watch", one("watch-latency",
			result.Op{Name: "put", Stats: latencyStats(0.001, 0.002, 0.003)}, result.Op{Name: "watch", Stats: latencyStats(0.0001, 0.0002, 0.0003)}),
			[]string{"watch-latency-put", "watch-latency-watch"}, 1, "2026-11-22T00:00:01Z", false},
		{"kube's operations are spelt for file names", one("kube",
			result.Op{Name: "patch nodes/status", Stats: latencyStats(0.001, 0.002, 0.003)}, result.Op{Name: "grant leases (events)", Stats: latencyStats(0.004, 0.005, 0.006)}),
			[]string{"kube-patch-nodes-status", "kube-grant-leases-events"}, 1, "2026-11-22T00:00:01Z", false},
		{"a sweep with iterations is one file, an item per run", sweep, []string{"put"}, 6, "2026-11-22T00:00:06Z", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Perfdash(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != len(tc.files) {
				t.Fatalf("%d files, want %d", len(files), len(tc.files))
			}
			for fi, f := range files {
				m := etcdName.FindStringSubmatch(f.Name)
				if m == nil || m[1] != tc.files[fi] || m[2] != tc.stamp {
					t.Errorf("file name %q, want EtcdAPI_benchmark_%s_%s.json", f.Name, tc.files[fi], tc.stamp)
				}
				var pd perfData
				dec := json.NewDecoder(strings.NewReader(string(f.JSON)))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&pd); err != nil {
					t.Fatalf("%s does not decode as perf-dash data: %v", f.Name, err)
				}
				if pd.Version != "v1" || len(pd.DataItems) != tc.items {
					t.Fatalf("version %q, %d items; want v1, %d", pd.Version, len(pd.DataItems), tc.items)
				}
				for ii, it := range pd.DataItems {
					run := tc.doc.Runs[ii]
					lat := run.Latency
					if len(run.Ops) > 0 {
						lat = run.Ops[fi].Latency
					}
					want := map[string]float64{"Perc50": lat.P50 * 1000, "Perc90": lat.P90 * 1000, "Perc99": lat.P99 * 1000}
					if len(it.Data) != len(want) {
						t.Errorf("item %d data %v, want exactly Perc50, Perc90, Perc99", ii, it.Data)
					}
					for k, w := range want {
						if got, ok := it.Data[k]; !ok || math.Abs(got-w) > 0.00005 {
							t.Errorf("item %d %s = %v, want %v ms to 4 decimals", ii, k, got, w)
						}
					}
					if it.Unit != "ms" || it.Labels["Operation"] != strings.ToUpper(tc.files[fi]) {
						t.Errorf("item %d unit %q labels %v", ii, it.Unit, it.Labels)
					}
					wantLabels := map[string]string{"Operation": strings.ToUpper(tc.files[fi])}
					if tc.runLabels {
						wantLabels["Conns"], wantLabels["Clients"], wantLabels["Iteration"] = itoa(run.Conns), itoa(run.Clients), itoa(run.Iteration)
					}
					if len(it.Labels) != len(wantLabels) {
						t.Errorf("item %d labels %v, want %v", ii, it.Labels, wantLabels)
					}
					for k, v := range wantLabels {
						if it.Labels[k] != v {
							t.Errorf("item %d label %s = %q, want %q", ii, k, it.Labels[k], v)
						}
					}
				}
				if !tc.runLabels {
					// etcd's own types write the same bytes.
					var er etcdReport
					if err := json.Unmarshal(f.JSON, &er); err != nil {
						t.Fatal(err)
					}
					again, err := json.MarshalIndent(er, "", "  ")
					if err != nil {
						t.Fatal(err)
					}
					if string(again) != string(f.JSON) {
						t.Errorf("not etcd's bytes:\n%s\netcd's types write:\n%s", f.JSON, again)
					}
				}
			}
		})
	}
}

func TestWritePerfdash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "_artifacts")
	start := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	doc := &result.Document{Kind: result.KindBench, Bench: &result.BenchConfig{Command: "range"},
		Runs: []result.Run{{Start: start, End: start.Add(time.Second), Stats: latencyStats(0.001, 0.002, 0.003)}}}
	paths, err := WritePerfdash(dir, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "EtcdAPI_benchmark_range_2026-11-22T00:00:01Z.json")
	if len(paths) != 1 || paths[0] != want {
		t.Fatalf("paths %v, want [%s]", paths, want)
	}
	fi, err := os.Stat(want)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o644 != 0o644 {
		t.Errorf("mode %v, want readable as etcd's 0644", fi.Mode())
	}
	if _, err := Perfdash(&result.Document{Kind: "disk"}); !errors.Is(err, ErrNoBench) {
		t.Errorf("a disk document: %v, want ErrNoBench", err)
	}
	if paths, err := WritePerfdash(filepath.Join(dir, "none"), &result.Document{Bench: &result.BenchConfig{Command: "put"}}); err != nil || paths != nil {
		t.Errorf("no runs: %v, %v; want no files", paths, err)
	}
}
