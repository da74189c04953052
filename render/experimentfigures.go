package render

import (
	"fmt"
	"math"

	"github.com/etcdlab/etcdlab/result"
)

// figData is what one chart of an experiment report draws, and the table
// of its numbers is made from: the golden files hold these, not SVG.
type figData struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Kind   string `json:"kind"` // "bars" or "lines"
	XLabel string `json:"x_label,omitempty"`
	YLabel string `json:"y_label"`
	LogX   bool   `json:"log_x,omitempty"`
	LogY   bool   `json:"log_y,omitempty"`
	// Categories are the bars' groups (one value per category in each
	// series).
	Categories []string    `json:"categories,omitempty"`
	Series     []figSeries `json:"series"`
	// Limit is a dashed horizontal line (10 ms, the machine's cores).
	Limit *figMark `json:"limit,omitempty"`
	// Floor is a dotted horizontal line at the lowest bucket's bound of
	// the histogram the values come from: a point on it means "at most".
	Floor *figMark `json:"floor,omitempty"`
	// Events are vertical marks (faults) on time axes.
	Events []figMark `json:"events,omitempty"`
	// Lines draws lines without a mark at each point (long time series).
	Lines bool `json:"lines_only,omitempty"`
	// Verdicts mark points by what was judged there (a size search's
	// probes): held, broke or inconclusive, each with its own glyph.
	Verdicts []figVerdict `json:"verdicts,omitempty"`
	// XTicks, if set, label the x axis at these values (a search's
	// probes) instead of the axis' own ticks.
	XTicks []float64 `json:"x_ticks,omitempty"`
}

// figVerdict is one judged point: Verdict is "held", "broke" or
// "inconclusive".
type figVerdict struct {
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Verdict string  `json:"verdict"`
}

// figSeries is one line or one colour of bars. Published series are the
// article's figures: triangles beside our lines, or bars of their own
// colour (named "article") beside ours; a 0 in a published bar series is a
// figure the article does not have.
type figSeries struct {
	Name      string    `json:"name"`
	X         []float64 `json:"x,omitempty"`
	Y         []float64 `json:"y"`
	Published bool      `json:"published,omitempty"`
}

// figMark is a horizontal line at V (Limit) or a vertical one at V
// (Events), with its label.
type figMark struct {
	V     float64 `json:"v"`
	Label string  `json:"label"`
}

// metricSpec is one figure against the setups or the swept param.
type metricSpec struct {
	id, title, unit string
	published       result.MetricName // the Published metric drawn beside it
	logY            bool
	value           func(c expCell) (float64, bool)
}

func clientMetrics() []metricSpec {
	return []metricSpec{
		{"throughput", "Throughput", "requests per second", result.MetricThroughput, false, func(c expCell) (float64, bool) { return c.M.Throughput.Mean, true }},
		{"p50", "Latency p50", "latency p50 (ms)", result.MetricLatencyP50, false, func(c expCell) (float64, bool) { return c.M.P50.Mean * 1000, true }},
		{"p99", "Latency p99", "latency p99 (ms)", result.MetricLatencyP99, false, func(c expCell) (float64, bool) { return c.M.P99.Mean * 1000, true }},
		{"mean", "Latency mean", "latency mean (ms)", result.MetricLatencyMean, false, func(c expCell) (float64, bool) { return c.M.Mean.Mean * 1000, c.M.Mean.Mean > 0 }},
	}
}

func serverMetrics() []metricSpec {
	srv := func(f func(c expCell) float64) func(c expCell) (float64, bool) {
		return func(c expCell) (float64, bool) { return f(c), c.M.ServerRuns > 0 }
	}
	return []metricSpec{
		{"cpu", "Server CPU (the members' cores, summed)", "cores", "", false, srv(func(c expCell) float64 { return c.M.MemberCPUCores })},
		{"disk", "Disk writes (the members', summed)", "MiB written per second", "", false, srv(func(c expCell) float64 { return c.M.DiskWriteBytesPerSecond / (1 << 20) })},
		{"fsync", "WAL fsync p99 (the member a commit waits for)", "WAL fsync p99 (ms, log)", "", true, func(c expCell) (float64, bool) {
			return c.M.WALFsyncP99 * 1000, c.M.ServerRuns > 0 && c.M.WALFsyncP99 > 0
		}},
		// The mean separates storages below etcd's lowest bucket (1 ms),
		// where the p99 only says "at most 1 ms".
		{"fsync-mean", "WAL fsync mean (_sum/_count, the member a commit waits for)", "WAL fsync mean (ms, log)", "", true, func(c expCell) (float64, bool) {
			return c.M.WALFsyncMean * 1000, c.M.ServerRuns > 0 && c.M.WALFsyncMean > 0
		}},
		{"fsyncs", "WAL fsyncs per second (the member a commit waits for)", "fsyncs per second", "", false, srv(func(c expCell) float64 { return c.M.WALFsyncsPerSecond })},
	}
}

// sweepFigures are the charts of the experiment's cells: curves against
// the swept param, one line per setup (the storage article's), or, when
// nothing is swept, grouped bars per setup (the multi-cloud article's).
func (m expModel) sweepFigures() []figData {
	if m.Sweep.Param != "" {
		return m.curves()
	}
	return m.bars()
}

// MinRequestsPerClient is the fewest requests each client must send in a
// run for a point of a curve to mean what its label says: with fewer, a
// latency is the first request or two of each client (its connection's
// queue at the start), not the cluster's latency under that many clients.
const MinRequestsPerClient = 10

// fewPerClient says why a cell's point is left out of the curves (too few
// requests per client), or "".
func fewPerClient(c expCell) string {
	if c.M.Clients <= 0 || c.M.Runs == 0 {
		return ""
	}
	per := float64(c.M.Requests+c.M.Errors) / float64(c.M.Runs) / float64(c.M.Clients)
	if per >= MinRequestsPerClient {
		return ""
	}
	return fmt.Sprintf("%s: %.1f requests per client per run (fewer than %d), left out of the curves: its latency is each client's first requests, not the cluster's under that load", c.Cell.ID, per, MinRequestsPerClient)
}

// lineCells are a line's cells that ran, with their x; on a curve along
// the swept param, a cell with too few requests per client is left out
// (fewPerClient).
func (m expModel) lineCells(l int) ([]expCell, []float64) {
	var cs []expCell
	var xs []float64
	line := m.Sweep.Lines[l]
	for k, i := range line.Cells {
		if c := m.Cells[i]; c.ran() && (m.Sweep.Param == "" || fewPerClient(c) == "") {
			cs, xs = append(cs, c), append(xs, line.X[k])
		}
	}
	return cs, xs
}

func (m expModel) curves() []figData {
	param := m.Sweep.Param
	x0, x1 := math.Inf(1), math.Inf(-1)
	for l := range m.Sweep.Lines {
		_, xs := m.lineCells(l)
		for _, x := range xs {
			x0, x1 = math.Min(x0, x), math.Max(x1, x)
		}
	}
	logX := x0 > 0 && x1/x0 >= 10
	xLabel := param
	if logX {
		xLabel += " (log)"
	}
	var out []figData
	specs := clientMetrics()
	specs[1].logY, specs[2].logY = logX, logX
	if logX {
		specs[1].unit, specs[2].unit = "latency p50 (ms, log)", "latency p99 (ms, log)"
	}
	for _, s := range append(specs, serverMetrics()...) {
		f := figData{ID: "exp-" + s.id, Title: s.title + " against " + param, Kind: "lines", XLabel: xLabel, YLabel: s.unit, LogX: logX, LogY: s.logY}
		var published []figSeries
		for l, line := range m.Sweep.Lines {
			cs, xs := m.lineCells(l)
			ser := figSeries{Name: line.Name}
			pub := figSeries{Name: "article: " + line.Name, Published: true}
			for k, c := range cs {
				if v, ok := s.value(c); ok {
					ser.X, ser.Y = append(ser.X, xs[k]), append(ser.Y, v)
				}
				if v, ok := m.publishedFor(c, s.published); ok {
					pub.X, pub.Y = append(pub.X, xs[k]), append(pub.Y, v)
				}
			}
			if len(ser.Y) > 0 {
				f.Series = append(f.Series, ser)
			}
			if len(pub.Y) > 0 {
				published = append(published, pub)
			}
		}
		f.Series = append(f.Series, published...)
		if len(f.Series) == 0 {
			continue
		}
		for _, mk := range m.Marks {
			if mk.Param == param {
				f.Events = append(f.Events, figMark{V: mk.At, Label: mk.Label})
			}
		}
		switch s.id {
		case "fsync":
			f.Limit = &figMark{V: 10, Label: "10 ms (etcd's guidance)"}
			if onBound(f.Series, result.LowestDiskBucket*1000) {
				f.Floor = &figMark{V: result.LowestDiskBucket * 1000, Label: "1 ms, etcd's lowest bucket: a point on it is at most 1 ms"}
			}
		case "cpu":
			if cores, ok := m.sharedCores(); ok {
				f.Limit = &figMark{V: cores, Label: "this machine's cores (members share them)"}
			}
		}
		out = append(out, f)
	}
	return out
}

// onBound reports whether any of our points sits on a histogram's lowest
// bound.
func onBound(series []figSeries, bound float64) bool {
	for _, s := range series {
		for _, y := range s.Y {
			if !s.Published && y > 0 && y <= bound*(1+1e-9) {
				return true
			}
		}
	}
	return false
}

// sharedCores is the cores of the machine every ran cell's members shared,
// when they all did.
func (m expModel) sharedCores() (float64, bool) {
	cores := 0
	for _, c := range m.Cells {
		if !c.ran() {
			continue
		}
		env := c.Cell.Environment
		if env.CPUs == 0 {
			env = m.machine // as judge reads it
		}
		if !env.LocalCluster || env.CPUs == 0 || (cores != 0 && cores != env.CPUs) {
			return 0, false
		}
		cores = env.CPUs
	}
	return float64(cores), cores > 0
}

// publishedFor is the article's value of metric for cell c, in the unit
// its chart draws (ms for latencies).
func (m expModel) publishedFor(c expCell, metric result.MetricName) (float64, bool) {
	if metric == "" {
		return 0, false
	}
	for _, p := range m.pubs {
		if p.Metric == string(metric) && matches(p.Match, c.Cell) {
			if unitOf(p.Metric) == result.UnitSeconds {
				return p.Value * 1000, true
			}
			return p.Value, true
		}
	}
	return 0, false
}

// bars draws one bar per setup for throughput, p50 and p99, the article's
// figure as a second bar where it has one, and the latency distribution
// per setup.
func (m expModel) bars() []figData {
	var cats []string
	var cells []expCell
	for l, line := range m.Sweep.Lines {
		cs, _ := m.lineCells(l)
		if len(cs) == 0 {
			continue
		}
		cats, cells = append(cats, line.Name), append(cells, cs[0])
	}
	if len(cells) == 0 {
		return nil
	}
	var out []figData
	for _, s := range clientMetrics() {
		f := figData{ID: "exp-" + s.id, Title: s.title + " per setup", Kind: "bars", YLabel: s.unit, Categories: cats}
		ours, pub := figSeries{Name: "etcdlab"}, figSeries{Name: "article", Published: true}
		anyPub := false
		for _, c := range cells {
			v, _ := s.value(c)
			p, ok := m.publishedFor(c, s.published)
			ours.Y, pub.Y = append(ours.Y, v), append(pub.Y, p)
			anyPub = anyPub || ok
		}
		f.Series = append(f.Series, ours)
		if anyPub {
			f.Series = append(f.Series, pub)
		}
		out = append(out, f)
	}
	// The latency distribution, setups side by side per percentile.
	pcts := []struct {
		name   string
		metric result.MetricName
	}{{"p10", result.MetricLatencyP10}, {"p25", result.MetricLatencyP25}, {"p50", result.MetricLatencyP50}, {"p75", result.MetricLatencyP75},
		{"p90", result.MetricLatencyP90}, {"p95", result.MetricLatencyP95}, {"p99", result.MetricLatencyP99}, {"p99.9", result.MetricLatencyP999}}
	f := figData{ID: "exp-distribution", Title: "Latency distribution per setup (mean over iterations)", Kind: "bars", YLabel: "latency (ms)"}
	for _, p := range pcts {
		f.Categories = append(f.Categories, p.name)
	}
	var published []figSeries
	for i, c := range cells {
		ours, pub := figSeries{Name: cats[i]}, figSeries{Name: "article: " + cats[i], Published: true}
		anyPub := false
		for _, p := range pcts {
			v, _ := ourValue(c, string(p.metric))
			a, ok := m.publishedFor(c, p.metric)
			ours.Y, pub.Y = append(ours.Y, v*1000), append(pub.Y, a)
			anyPub = anyPub || ok
		}
		f.Series = append(f.Series, ours)
		if anyPub {
			published = append(published, pub)
		}
	}
	f.Series = append(f.Series, published...)
	return append(out, f)
}
