package render

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestSecondsAddedOnlyForWholeRuns: issue 33 found disk-qualification's
// report with a row "ebs-like − this-disk, fdatasync p99 (seconds added)":
// the Kubernetes seconds-added form applied to a latency percentile. A
// difference in seconds is shown only for the duration of a whole run
// (result.Metric.WholeRun: a time to Ready); a percentile of two setups
// the article gives is compared as a ratio, both sides.
func TestSecondsAddedOnlyForWholeRuns(t *testing.T) {
	t.Parallel()
	disk := func(setup string, p99, iops float64) result.Cell {
		return result.Cell{ID: setup + "/fio", Setup: setup, Workload: "fio", Status: result.CellOK, Params: map[string]string{},
			Disk: &result.Disk{Profile: "etcd", Jobs: []result.DiskJob{{Name: "etcd", IOPS: iops,
				SyncLatency: &result.DiskLatency{Percentiles: []result.Percentile{{P: 99, Seconds: p99}}}}}}}
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Environment: result.Environment{CPUs: 2},
		Experiment: &result.Experiment{Name: "disk-qualification", Cells: []result.Cell{disk("this-disk", 0.00051, 4000), disk("ebs-like", 0.0064, 150)}}}
	e := doc.Experiment
	for setup, v := range map[string]float64{"this-disk": 0.0092, "ebs-like": 0.00638} {
		e.Published = append(e.Published, result.Published{Match: map[string]string{"setup": setup, "workload": "fio"}, Metric: string(result.MetricDiskFsyncP99), Value: v})
	}
	for _, r := range modelOf(doc).Published {
		if strings.Contains(r.Metric, "seconds added") || strings.HasSuffix(r.Ours, " s") {
			t.Errorf("a percentile shown as seconds added: %+v", r)
		}
	}
	var ratio bool
	for _, r := range modelOf(doc).Published {
		if strings.Contains(r.Metric, "fdatasync p99") && strings.HasSuffix(r.Metric, "(ratio)") {
			ratio = true
			if r.Ours == "" || r.Published == "" {
				t.Errorf("ratio row without both sides: %+v", r)
			}
		}
	}
	if !ratio {
		t.Errorf("no ratio row for the fdatasync p99 of two setups: %+v", modelOf(doc).Published)
	}
	for _, mt := range result.Metrics() {
		if mt.WholeRun != (mt.Name == result.MetricTimeToReady || mt.Name == result.MetricTotal) {
			t.Errorf("%s: WholeRun %v", mt.Name, mt.WholeRun)
		}
	}
}

// TestTailPercentileSaysItsSamples: a disk job's p99 read from fewer than
// a thousand syncs says how few lay above it; one from more does not.
func TestTailPercentileSaysItsSamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ops  int64
		want string
	}{
		{209, "only 2 of 209 fdatasyncs above it"},
		{999, ""}, // 10 above it
		{5000, ""},
	} {
		c := result.Cell{ID: "hdd/fio", Setup: "hdd", Workload: "fio", Status: result.CellOK, Params: map[string]string{},
			Disk: &result.Disk{Profile: "etcd", Jobs: []result.DiskJob{{Name: "etcd", Sync: "fdatasync", Ops: tc.ops, IOPS: 25,
				SyncLatency: &result.DiskLatency{Percentiles: []result.Percentile{{P: 99, Seconds: 0.158}}}}}}}
		doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Environment: result.Environment{CPUs: 2},
			Experiment: &result.Experiment{Name: "hdd-diagnosis", Cells: []result.Cell{c},
				Published: []result.Published{{Match: map[string]string{"setup": "hdd", "workload": "fio"}, Metric: string(result.MetricDiskFsyncP99), Value: 0.268}}}}
		rows := modelOf(doc).Published
		if len(rows) != 1 {
			t.Fatalf("%d ops: rows %+v", tc.ops, rows)
		}
		got := rows[0].Ours
		switch {
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%d ops: %q, want it to say %q", tc.ops, got, tc.want)
		case tc.want == "" && strings.Contains(got, "above it"):
			t.Errorf("%d ops: %q says its samples, which are enough", tc.ops, got)
		}
	}
}
