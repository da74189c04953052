package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/result"
)

// PerfdashDefaultDir is where etcd benchmark v3.7's --report-perfdash
// writes when $ARTIFACTS is empty (pkg/report/perfdash.go).
const PerfdashDefaultDir = "./_artifacts"

// PerfdashFile is one perf-dash JSON file: its base name and contents.
// It is plain data, safe to share.
type PerfdashFile struct {
	// Name is EtcdAPI_benchmark_<op>_<RFC 3339 UTC time>.json, etcd
	// benchmark v3.7's pattern.
	Name string
	// JSON is the file's contents, indented as etcd benchmark writes them.
	JSON []byte
}

// perfdashReport is perf-dash's data-item format (kubernetes/perf-tests
// perftype.PerfData), with etcd benchmark v3.7's field order.
type perfdashReport struct {
	Version   string         `json:"version"`
	DataItems []perfdashItem `json:"dataItems"`
}

type perfdashItem struct {
	Data   perfdashPercentiles `json:"data"`
	Labels map[string]string   `json:"labels"`
	Unit   string              `json:"unit"`
}

type perfdashPercentiles struct {
	Perc50 float64 `json:"Perc50"`
	Perc90 float64 `json:"Perc90"`
	Perc99 float64 `json:"Perc99"`
}

// ErrNoBench is returned for a document that is not a bench result.
var ErrNoBench = errors.New("perfdash: not a bench result")

// Perfdash renders a bench document as etcd benchmark v3.7's
// --report-perfdash files. etcd writes one file per report: per command,
// and per operation for commands that report several (txn-mixed-read and
// txn-mixed-write, watch-latency-put and watch-latency-watch). So does
// this, named <command> or <command>-<op>, stamped with the end of the
// document's last run, as etcd stamps the file when its run ends. Each
// file holds one data item per run: p50, p90 and p99 latency in ms
// rounded to 4 decimals, labelled Operation (the upper-cased op name, as
// etcd). bench kube's operations are spelt with dashes only
// (kube-patch-nodes-status). A document with one run gives exactly etcd's file; with several
// (a sweep or --iterations) every item also has the labels Conns, Clients
// and Iteration, which perf-dash offers as drop-downs. Percentiles are
// etcdlab's (HdrHistogram, 3 significant digits), not etcd's exact ones.
func Perfdash(doc *result.Document) ([]PerfdashFile, error) {
	if doc == nil || doc.Bench == nil {
		return nil, ErrNoBench
	}
	if len(doc.Runs) == 0 {
		return nil, nil
	}
	var ops []string
	items := map[string][]perfdashItem{}
	var end time.Time
	for _, run := range doc.Runs {
		if run.End.After(end) {
			end = run.End
		}
		parts := []result.Op{{Name: perfdashOp(doc.Bench.Command), Stats: run.Stats}}
		if len(run.Ops) > 0 {
			parts = parts[:0]
			for _, o := range run.Ops {
				parts = append(parts, result.Op{Name: perfdashOp(doc.Bench.Command + "-" + o.Name), Stats: o.Stats})
			}
		}
		for _, p := range parts {
			if _, ok := items[p.Name]; !ok {
				ops = append(ops, p.Name)
			}
			labels := map[string]string{"Operation": strings.ToUpper(p.Name)}
			if len(doc.Runs) > 1 {
				labels["Conns"] = strconv.Itoa(run.Conns)
				labels["Clients"] = strconv.Itoa(run.Clients)
				labels["Iteration"] = strconv.Itoa(run.Iteration)
			}
			items[p.Name] = append(items[p.Name], perfdashItem{
				Data: perfdashPercentiles{
					Perc50: perfdashMS(p.Latency.P50),
					Perc90: perfdashMS(p.Latency.P90),
					Perc99: perfdashMS(p.Latency.P99),
				},
				Labels: labels,
				Unit:   "ms",
			})
		}
	}
	stamp := end.UTC().Format(time.RFC3339)
	files := make([]PerfdashFile, 0, len(ops))
	for _, op := range ops {
		b, err := json.MarshalIndent(perfdashReport{Version: "v1", DataItems: items[op]}, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("perfdash %s: %w", op, err)
		}
		files = append(files, PerfdashFile{Name: fmt.Sprintf("EtcdAPI_benchmark_%s_%s.json", op, stamp), JSON: b})
	}
	return files, nil
}

// perfdashOp spells an operation as a file name's part: lower case,
// letters, digits and dashes ("kube-patch-nodes-status"). etcd's names
// are already so.
func perfdashOp(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}

// perfdashMS converts seconds to milliseconds rounded to 4 decimals, as
// etcd benchmark does.
func perfdashMS(seconds float64) float64 {
	return math.Round(seconds*1000*10000) / 10000
}

// WritePerfdash writes Perfdash's files into dir, creating it (0755, files
// 0644, as etcd benchmark), and returns their paths. It may be called
// concurrently for different directories.
func WritePerfdash(dir string, doc *result.Document) ([]string, error) {
	files, err := Perfdash(doc)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("perfdash: %w", err)
	}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		p := filepath.Join(dir, f.Name)
		// etcd benchmark's mode: dashboards' collectors read these. Each
		// file is whole or absent, so a collector never reads half of one.
		if err := atomicfile.WriteBytes(p, f.JSON, 0o644); err != nil {
			return paths, fmt.Errorf("perfdash: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
