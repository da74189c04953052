package compare

import (
	"math"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// cell is a bench cell with iterations: rps and p50 are the means, sd the
// throughput's spread.
func cell(id, status string, rps, p50, sd float64, iters int) result.Cell {
	c := result.Cell{ID: id, Setup: strings.Split(id, "/")[0], Workload: "put", Status: status}
	if status == result.CellOK {
		for i := 1; i <= iters; i++ {
			c.Runs = append(c.Runs, result.Run{Name: id, Conns: 100, Clients: 1000, Iteration: i, Stats: result.Stats{Requests: 100000, ThroughputRPS: rps}})
		}
		c.Summaries = []result.Summary{{Name: "put conns=100 clients=1000", Conns: 100, Clients: 1000, Iterations: iters,
			ThroughputRPS: result.MeanSD{Mean: rps, Stddev: sd}, P50: result.MeanSD{Mean: p50, Stddev: p50 / 50}, P99: result.MeanSD{Mean: 3 * p50}, Mean: result.MeanSD{Mean: p50}}}
	}
	return c
}

func exp(cells ...result.Cell) *result.Document {
	return &result.Document{Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "leader-vs-all", Cells: cells}}
}

// TestCompareExperiments: the same experiment on two machines, compared
// cell by cell as the Graviton article's % tables; cells that did not run
// on both sides are listed, not compared.
func TestCompareExperiments(t *testing.T) {
	t.Parallel()
	m5 := exp(cell("xlarge/leader", result.CellOK, 37924.91, 0.0262, 400, 20), cell("xlarge/all", result.CellOK, 55262.25, 0.01797, 3000, 20),
		cell("2xlarge/leader", result.CellOK, 55225.25, 0.018, 500, 20), cell("2xlarge/all", result.CellFailed, 0, 0, 0, 0), cell("only-m5", result.CellOK, 1, 1, 0, 1))
	m6g := exp(cell("xlarge/all", result.CellOK, 60674.89, 0.01634, 3000, 20), cell("xlarge/leader", result.CellOK, 42485.98, 0.0234, 400, 20),
		cell("2xlarge/leader", result.CellOK, 64932.72, 0.01529, 500, 1), cell("2xlarge/all", result.CellOK, 80485.83, 0.0123, 0, 20), cell("only-m6g", result.CellOK, 1, 1, 0, 1))
	cs, err := Compare(result.Named{Name: "m5.json", Doc: m5}, result.Named{Name: "m6g.json", Doc: m6g})
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	get := func(point, metric string) Row {
		for _, r := range c.Rows {
			if r.Point == point && r.Metric == metric {
				return r
			}
		}
		t.Fatalf("no row %s %s in %+v", point, metric, c.Rows)
		return Row{}
	}
	for _, tt := range []struct {
		point, metric string
		pct           float64
		better        int
		sig           *bool
	}{
		{"xlarge/leader", "throughput", 12.03, 1, ptr(true)}, // the article's 12%, far beyond a 400 req/s spread
		{"xlarge/leader", "latency p50", -10.69, 1, ptr(true)},
		{"xlarge/all", "throughput", 9.79, 1, ptr(true)},
		{"2xlarge/leader", "throughput", 17.58, 1, nil}, // one iteration on one side: no significance claimed
	} {
		r := get(tt.point, tt.metric)
		if math.Abs(r.ChangePct-tt.pct) > 0.01 || r.Better != tt.better || (tt.sig == nil) != (r.Significant == nil) || (tt.sig != nil && *tt.sig != *r.Significant) {
			t.Errorf("%s %s: %+v, want %+.2f%% better=%d significant=%v", tt.point, tt.metric, r, tt.pct, tt.better, tt.sig)
		}
	}
	if c.Rows[0].Point != "xlarge/leader" {
		t.Errorf("rows not in the base's order: %+v", c.Rows[0])
	}
	want := []string{"2xlarge/all: failed in the base", "only-m5: only in the base", "only-m6g: only in the other"}
	if strings.Join(c.Unmatched, "|") != strings.Join(want, "|") {
		t.Errorf("unmatched %q, want %q", c.Unmatched, want)
	}
	// A spread as large as the difference is not significant.
	noisy := exp(cell("xlarge/leader", result.CellOK, 38500, 0.026, 3000, 20))
	cs, err = Compare(result.Named{Name: "m5.json", Doc: m5}, result.Named{Name: "noisy.json", Doc: noisy})
	if err != nil {
		t.Fatal(err)
	}
	if s := cs[0].Rows[0].Significant; s == nil || *s {
		t.Errorf("1.5%% within a 3000 req/s spread marked significant: %+v", cs[0].Rows[0])
	}
	// Nothing in common is an error, as for other kinds.
	if _, err := Compare(result.Named{Name: "a.json", Doc: exp(cell("a", result.CellOK, 1, 1, 0, 1))}, result.Named{Name: "b.json", Doc: exp(cell("b", result.CellOK, 1, 1, 0, 1))}); err == nil {
		t.Fatal("experiments without a common cell compared")
	}
}

// TestCompareExperimentDiskCells: a disk job cell is compared as disk
// results are.
func TestCompareExperimentDiskCells(t *testing.T) {
	t.Parallel()
	d := func(iops float64) result.Cell {
		return result.Cell{ID: "hdd/disk", Status: result.CellOK, Disk: &result.Disk{Jobs: []result.DiskJob{{Name: "sequential fdatasync", Sync: "fdatasync", IOPS: iops,
			SyncLatency: &result.DiskLatency{Percentiles: []result.Percentile{{P: 50, Seconds: 0.04}, {P: 99, Seconds: 0.2}, {P: 99.9, Seconds: 0.3}}}}}}}
	}
	cs, err := Compare(result.Named{Name: "a", Doc: exp(d(24))}, result.Named{Name: "b", Doc: exp(d(48))})
	if err != nil {
		t.Fatal(err)
	}
	if r := cs[0].Rows[0]; r.Point != "hdd/disk sequential fdatasync" || r.Metric != "IOPS" || r.ChangePct != 100 {
		t.Fatalf("%+v", r)
	}
}

// TestCompareExperimentCellsWithoutSummaries: a cell written with its
// iterations' runs but no summary is compared as one point with its
// spread, not run by run.
func TestCompareExperimentCellsWithoutSummaries(t *testing.T) {
	t.Parallel()
	c := func(rps ...float64) result.Cell {
		x := result.Cell{ID: "leader", Status: result.CellOK}
		for i, v := range rps {
			x.Runs = append(x.Runs, result.Run{Conns: 100, Clients: 1000, Iteration: i + 1, Stats: result.Stats{Requests: 1000, ThroughputRPS: v, Latency: result.Latency{P50: 0.01}}})
		}
		return x
	}
	cs, err := Compare(result.Named{Name: "a", Doc: exp(c(1000, 1010, 990))}, result.Named{Name: "b", Doc: exp(c(1200, 1210, 1190))})
	if err != nil {
		t.Fatal(err)
	}
	if rows := cs[0].Rows; len(rows) != 4 || rows[0].Point != "leader" || math.Abs(rows[0].ChangePct-20) > 1e-9 || rows[0].Significant == nil || !*rows[0].Significant {
		t.Fatalf("%+v", rows)
	}
}

func ptr(b bool) *bool { return &b }
