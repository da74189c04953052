package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestBenchReportPerfdash runs the built binary (so that $ARTIFACTS is its
// own, and tests beside it are not disturbed) with --report-perfdash on a
// real one-member cluster, and checks that the perf-dash files are where
// etcd benchmark v3.7 puts them, named as it names them, and hold the
// run's p50/p90/p99 in ms, as -o json reports them.
func TestBenchReportPerfdash(t *testing.T) {
	t.Parallel()
	name := regexp.MustCompile(`^EtcdAPI_benchmark_([a-z-]+)_\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.json$`)
	for _, tc := range []struct {
		name      string
		artifacts bool // set $ARTIFACTS; else ./_artifacts in the working directory
		args      []string
		ops       []string
	}{
		{"put into ARTIFACTS", true, []string{"put", "--total=100"}, []string{"put"}},
		{"txn-mixed into ./_artifacts", false, []string{"txn-mixed", "--total=100"}, []string{"txn-mixed-read", "txn-mixed-write"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			dir := filepath.Join(work, "_artifacts")
			printed := "_artifacts" // the default, relative to the working directory
			env := []string{}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "ARTIFACTS=") {
					env = append(env, kv)
				}
			}
			if tc.artifacts {
				dir = filepath.Join(t.TempDir(), "perf")
				env = append(env, "ARTIFACTS="+dir)
				printed = dir
			}
			cmd := exec.Command(binary, append([]string{"bench", "--members", "1", "--report-perfdash", "-o", "json"}, tc.args...)...)
			cmd.Dir, cmd.Env = work, env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, stderr.String())
			}
			doc, err := result.Read(&stdout)
			if err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("no perf-dash directory: %v; stderr: %s", err, stderr.String())
			}
			if len(entries) != len(tc.ops) {
				t.Fatalf("%d files in %s, want %d", len(entries), dir, len(tc.ops))
			}
			for i, e := range entries { // ReadDir sorts by name: the ops' order
				m := name.FindStringSubmatch(e.Name())
				if m == nil || m[1] != tc.ops[i] {
					t.Fatalf("file %q, want EtcdAPI_benchmark_%s_<RFC 3339>.json", e.Name(), tc.ops[i])
				}
				if !strings.Contains(stderr.String(), "perf-dash report written to "+filepath.Join(printed, e.Name())+"\n") {
					t.Errorf("stderr does not name %s: %s", e.Name(), stderr.String())
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				var pd struct {
					Version   string `json:"version"`
					DataItems []struct {
						Data   map[string]float64 `json:"data"`
						Unit   string             `json:"unit"`
						Labels map[string]string  `json:"labels"`
					} `json:"dataItems"`
				}
				if err := json.Unmarshal(b, &pd); err != nil {
					t.Fatal(err)
				}
				if pd.Version != "v1" || len(pd.DataItems) != 1 {
					t.Fatalf("%s: %s", e.Name(), b)
				}
				it := pd.DataItems[0]
				lat := doc.Runs[0].Latency
				if len(doc.Runs[0].Ops) > 0 {
					lat = doc.Runs[0].Ops[i].Latency
				}
				if lat.P50 <= 0 {
					t.Fatalf("the run measured no latency: %+v", doc.Runs[0])
				}
				for k, s := range map[string]float64{"Perc50": lat.P50, "Perc90": lat.P90, "Perc99": lat.P99} {
					if math.Abs(it.Data[k]-s*1000) > 0.00005 {
						t.Errorf("%s %s = %v ms, the run's is %v s", e.Name(), k, it.Data[k], s)
					}
				}
				if it.Unit != "ms" || len(it.Labels) != 1 || it.Labels["Operation"] != strings.ToUpper(tc.ops[i]) {
					t.Errorf("%s: unit %q labels %v", e.Name(), it.Unit, it.Labels)
				}
			}
		})
	}
}
