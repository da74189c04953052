package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// maxLines bounds the series of one time chart, for legibility.
const maxLines = 8

var latencyPercentiles = []float64{10, 25, 50, 75, 90, 95, 99, 99.9, 99.99} //nolint:gochecknoglobals // constant table

func pctTicks(ps []float64) []plot.Tick {
	t := make([]plot.Tick, len(ps))
	for i, p := range ps {
		t[i] = plot.Tick{Value: float64(i), Label: "p" + strconv.FormatFloat(p, 'f', -1, 64)}
	}
	return t
}

// sweepHistograms merges each sweep point's iterations into one histogram.
func sweepHistograms(doc *result.Document) ([]string, []*hdrhistogram.Histogram) {
	var names []string
	hs := map[string]*hdrhistogram.Histogram{}
	for _, r := range doc.Runs {
		name := fmt.Sprintf("conns=%d clients=%d", r.Conns, r.Clients)
		h, err := hdrhistogram.Decode([]byte(r.Histogram))
		if err != nil {
			continue
		}
		if hs[name] == nil {
			names = append(names, name)
			hs[name] = h
		} else {
			hs[name].Merge(h)
		}
	}
	out := make([]*hdrhistogram.Histogram, len(names))
	for i, n := range names {
		out[i] = hs[n]
	}
	return names, out
}

// benchFigures are the charts of one bench document.
func benchFigures(doc *result.Document, prefix string) ([]Chart, error) {
	var charts []Chart
	add := func(c Chart, err error, t Table) error {
		if err != nil {
			return err
		}
		c.Table = t
		charts = append(charts, c)
		return nil
	}
	// Latency distribution per sweep point.
	names, hists := sweepHistograms(doc)
	var ss []series
	t := Table{Header: append([]string{"series (ms)"}, tickLabels(latencyPercentiles)...)}
	for i, h := range hists {
		s := series{name: names[i]}
		row := []string{names[i]}
		for j, p := range latencyPercentiles {
			v := float64(h.ValueAtPercentile(p)) / 1e6
			s.xy = append(s.xy, plotter.XY{X: float64(j), Y: v * 1000})
			row = append(row, ms(v))
		}
		ss = append(ss, s)
		t.Rows = append(t.Rows, row)
	}
	if len(ss) > 0 {
		c, err := lineChart(prefix+"latency-percentiles", "Latency distribution", "percentile", "latency (ms, log)", ss, lineOpts{logY: true, xTicks: pctTicks(latencyPercentiles)})
		if err := add(c, err, t); err != nil {
			return nil, err
		}
	}
	// Throughput and latency over time.
	var tput, lat []series
	tt := Table{Header: []string{"run", "seconds", "mean req/s", "min req/s", "max req/s", "mean latency ms"}}
	for i, r := range doc.Runs {
		if i >= maxLines || len(r.TimeSeries) == 0 {
			continue
		}
		st, sl := series{name: r.Name}, series{name: r.Name}
		mn, mx, sum, lsum := math.Inf(1), 0.0, 0.0, 0.0
		for _, p := range r.TimeSeries {
			x := float64(p.UnixSecond - r.TimeSeries[0].UnixSecond)
			st.xy = append(st.xy, plotter.XY{X: x, Y: float64(p.Requests)})
			if p.Requests > 0 {
				sl.xy = append(sl.xy, plotter.XY{X: x, Y: p.Mean * 1000})
			}
			mn, mx, sum = math.Min(mn, float64(p.Requests)), math.Max(mx, float64(p.Requests)), sum+float64(p.Requests)
			lsum += p.Mean * float64(p.Requests)
		}
		n := float64(len(r.TimeSeries))
		tput, lat = append(tput, st), append(lat, sl)
		tt.Rows = append(tt.Rows, []string{r.Name, strconv.Itoa(len(r.TimeSeries)), f1(sum / n), f1(mn), f1(mx), ms(lsum / math.Max(sum, 1))})
	}
	if len(tput) > 0 {
		c, err := lineChart(prefix+"throughput-time", "Throughput over time", "seconds since start", "requests per second", tput, lineOpts{})
		if err := add(c, err, tt); err != nil {
			return nil, err
		}
		c, err = lineChart(prefix+"latency-time", "Mean latency over time", "seconds since start", "mean latency (ms)", lat, lineOpts{})
		if err := add(c, err, tt); err != nil {
			return nil, err
		}
	}
	// Response-time histogram, all runs merged, log-spaced buckets.
	if len(hists) > 0 {
		all := hdrhistogram.New(1, 60_000_000, 3)
		for _, h := range hists {
			all.Merge(h)
		}
		cats, counts := logBuckets(all)
		ht := Table{Header: []string{"latency up to", "requests"}}
		for i := range cats {
			ht.Rows = append(ht.Rows, []string{cats[i], strconv.FormatFloat(counts[i], 'f', 0, 64)})
		}
		c, err := barChart(prefix+"histogram", "Response time histogram (all runs)", "requests", cats, []string{"requests"}, [][]float64{counts})
		if err := add(c, err, ht); err != nil {
			return nil, err
		}
	}
	if len(doc.Runs) > 1 {
		if err := runBars(doc, prefix, add); err != nil {
			return nil, err
		}
	}
	if err := sweepCurves(doc, prefix, add); err != nil {
		return nil, err
	}
	return charts, nil
}

func tickLabels(ps []float64) []string {
	out := make([]string, len(ps))
	for i, t := range pctTicks(ps) {
		out[i] = t.Label
	}
	return out
}

// logBuckets counts a histogram (µs) in power-of-two buckets from 0.125 ms.
func logBuckets(h *hdrhistogram.Histogram) ([]string, []float64) {
	var bounds []float64
	for b := 125.0; b/2 < float64(h.Max()); b *= 2 {
		bounds = append(bounds, b)
	}
	counts := make([]float64, len(bounds))
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := float64(bar.From+bar.To) / 2
		i := sort.SearchFloat64s(bounds, v)
		counts[min(i, len(bounds)-1)] += float64(bar.Count)
	}
	cats := make([]string, len(bounds))
	for i, b := range bounds {
		cats[i] = units.Seconds(b / 1e6)
	}
	return cats, counts
}

// runBars compares the runs of one document with grouped bars.
func runBars(doc *result.Document, prefix string, add func(Chart, error, Table) error) error {
	var cats []string
	var rps, total []float64
	lat := make([][]float64, 3)
	t := Table{Header: []string{"run", "total s", "req/s", "p50 ms", "p99 ms", "p99.9 ms"}}
	for i, r := range doc.Runs {
		cats = append(cats, strconv.Itoa(i+1))
		rps, total = append(rps, r.ThroughputRPS), append(total, r.DurationSeconds)
		for j, v := range []float64{r.Latency.P50, r.Latency.P99, r.Latency.P999} {
			lat[j] = append(lat[j], v*1000)
		}
		t.Rows = append(t.Rows, []string{strconv.Itoa(i+1) + ": " + r.Name, fmt.Sprintf("%.2f", r.DurationSeconds), f1(r.ThroughputRPS), ms(r.Latency.P50), ms(r.Latency.P99), ms(r.Latency.P999)})
	}
	c, err := barChart(prefix+"runs-throughput", "Requests per second, per run", "requests per second", cats, []string{"req/s"}, [][]float64{rps})
	if err := add(c, err, t); err != nil {
		return err
	}
	c, err = barChart(prefix+"runs-latency", "Latency per run", "latency (ms)", cats, []string{"p50", "p99", "p99.9"}, lat)
	if err := add(c, err, t); err != nil {
		return err
	}
	c, err = barChart(prefix+"runs-total", "Total time per run", "seconds", cats, []string{"total"}, [][]float64{total})
	return add(c, err, t)
}

// sweepCurves draws throughput and latency against clients when the
// document is a client sweep.
func sweepCurves(doc *result.Document, prefix string, add func(Chart, error, Table) error) error {
	byConns := map[int][]result.Summary{}
	var conns []int
	for _, s := range doc.Summaries {
		if _, ok := byConns[s.Conns]; !ok {
			conns = append(conns, s.Conns)
		}
		byConns[s.Conns] = append(byConns[s.Conns], s)
	}
	sweep := false
	for _, c := range conns {
		sweep = sweep || len(byConns[c]) > 1
	}
	if !sweep {
		return nil
	}
	var tput, lat []series
	t := Table{Header: []string{"conns", "clients", "req/s", "p50 ms", "p99 ms"}}
	for _, c := range conns {
		ps := byConns[c]
		sort.Slice(ps, func(i, j int) bool { return ps[i].Clients < ps[j].Clients })
		st := series{name: fmt.Sprintf("conns=%d req/s", c)}
		s50, s99 := series{name: fmt.Sprintf("conns=%d p50", c)}, series{name: fmt.Sprintf("conns=%d p99", c)}
		for _, p := range ps {
			x := float64(p.Clients)
			st.xy = append(st.xy, plotter.XY{X: x, Y: p.ThroughputRPS.Mean})
			s50.xy = append(s50.xy, plotter.XY{X: x, Y: p.P50.Mean * 1000})
			s99.xy = append(s99.xy, plotter.XY{X: x, Y: p.P99.Mean * 1000})
			t.Rows = append(t.Rows, []string{strconv.Itoa(c), strconv.Itoa(p.Clients), f1(p.ThroughputRPS.Mean), ms(p.P50.Mean), ms(p.P99.Mean)})
		}
		tput, lat = append(tput, st), append(lat, s50, s99)
	}
	c, err := lineChart(prefix+"sweep-throughput", "Throughput against clients", "clients (log)", "requests per second", tput, lineOpts{logX: true})
	if err := add(c, err, t); err != nil {
		return err
	}
	c, err = lineChart(prefix+"sweep-latency", "Latency against clients", "clients (log)", "latency (ms, log)", lat, lineOpts{logX: true, logY: true})
	return add(c, err, t)
}

// diskFigures are the charts of one disk document.
func diskFigures(doc *result.Document, prefix string) ([]Chart, error) {
	d := doc.Disk
	var charts []Chart
	if len(d.Jobs) == 0 || d.Jobs[0].SyncLatency == nil {
		return nil, nil
	}
	j := d.Jobs[0]
	var ps []float64
	s := series{name: j.Sync + " latency"}
	t := Table{Header: []string{"percentile", j.Sync + " latency"}}
	for i, p := range j.SyncLatency.Percentiles {
		ps = append(ps, p.P)
		s.xy = append(s.xy, plotter.XY{X: float64(i), Y: p.Seconds * 1000})
		t.Rows = append(t.Rows, []string{"p" + strconv.FormatFloat(p.P, 'f', -1, 64), units.Seconds(p.Seconds)})
	}
	c, err := lineChart(prefix+"fsync-percentiles", j.Sync+" latency percentiles against the 10 ms line", "percentile", "latency (ms, log)",
		[]series{s}, lineOpts{logY: true, xTicks: pctTicks(ps), threshold: 10, thresholdLabel: "10 ms (etcd FAQ)"})
	if err != nil {
		return nil, err
	}
	c.Table = t
	charts = append(charts, c)
	if len(d.Jobs) > 1 {
		var cats []string
		var iops []float64
		t := Table{Header: []string{"job", "IOPS", "read IOPS", "write IOPS"}}
		for _, j := range d.Jobs {
			cats = append(cats, j.Name)
			iops = append(iops, j.IOPS)
			t.Rows = append(t.Rows, []string{j.Name, fmt.Sprintf("%.0f", j.IOPS), fmt.Sprintf("%.0f", j.ReadIOPS), fmt.Sprintf("%.0f", j.WriteIOPS)})
		}
		c, err := barChart(prefix+"suite-iops", "IOPS per job", "IOPS", cats, []string{"IOPS"}, [][]float64{iops})
		if err != nil {
			return nil, err
		}
		c.Table = t
		charts = append(charts, c)
	}
	return charts, nil
}
