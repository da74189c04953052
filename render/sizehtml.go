package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/result"
)

// SizeHTML writes `etcdlab size`'s answer as one self-contained HTML page
// (the same content as SizeText) with knee charts: per candidate, the
// judged figures of its probes as shares of their SLO limits along the
// target's size, each probe marked held, broke or inconclusive and the
// knee marked; and the round-trip probes beside OpenShift's 33 and 66 ms.
func SizeHTML(w io.Writer, s *result.Size) error {
	if s == nil {
		return fmt.Errorf("not a size result: no answer in it")
	}
	tmpl, err := reportTemplate()
	if err != nil {
		return err
	}
	v := docView{Name: sizeTargetPhrase(s.Target), Kind: result.KindSize}
	if err := sizeView(&v, s, ""); err != nil {
		return err
	}
	p := page{Title: "etcdlab size: " + v.Name, Generated: time.Now().UTC().Format(time.RFC3339), Version: version.String(), Docs: []docView{v}}
	return tmpl.Execute(w, p)
}

// sizeView fills a size result's part of a page: the headline, the
// sections of the text, and the knee and round-trip charts (whose tables
// are the probes).
func sizeView(v *docView, s *result.Size, prefix string) error {
	a := sizeModel(s)
	v.Headline = a.Headline
	for _, sec := range a.Sections {
		if !sec.Detail {
			v.Sections = append(v.Sections, sec)
		}
	}
	for i, c := range s.Candidates {
		f, ok := sizeKneeFigure(s, c, fmt.Sprintf("size-knee-%d", i))
		if !ok {
			continue
		}
		ch, err := f.draw(prefix)
		if err != nil {
			return fmt.Errorf("%s's knee chart: %w", c.Name, err)
		}
		ch.Table = *sizeProbeTable(c.Probes, false)
		v.Charts = append(v.Charts, ch)
	}
	if f, ok := sizeRTTFigure(s); ok {
		ch, err := f.draw(prefix)
		if err != nil {
			return fmt.Errorf("the round-trip chart: %w", err)
		}
		ch.Table = *sizeProbeTable(s.RTT.Probes, true)
		v.Charts = append(v.Charts, ch)
	}
	return nil
}

// sizeLimits are the limits the charts divide by, in seconds: the SLOs'
// own where the result states them.
func sizeLimits(s *result.Size) (mutating, fsync, commit float64) {
	mutating, fsync, commit = 1, 0.010, 0.025
	for _, o := range s.SLOs {
		l := o.Limit
		switch o.Unit {
		case "s":
		case "ms":
			l /= 1000
		default:
			continue
		}
		if l <= 0 {
			continue
		}
		switch o.Name {
		case result.SLOMutatingP99:
			mutating = l
		case result.SLOWALFsyncP99:
			fsync = l
		case result.SLOCommitP99:
			commit = l
		}
	}
	return mutating, fsync, commit
}

// sizeShares are a probe's judged figures as shares of their limits:
// mutating p99, WAL fsync p99, backend commit p99, CPU of the budget.
func sizeShares(p result.SizeProbe, mutating, fsync, commit float64) [4]float64 {
	return [4]float64{p.MutatingP99 / mutating, p.WALFsyncP99 / fsync, p.CommitP99 / commit, p.CPUShare}
}

// sizeSeriesNames name sizeShares' figures with their limits.
func sizeSeriesNames(mutating, fsync, commit float64) [4]string {
	sec := func(v float64) string {
		if v >= 1 {
			return strconv.FormatFloat(v, 'g', 3, 64) + " s"
		}
		return strconv.FormatFloat(v*1000, 'g', 3, 64) + " ms"
	}
	return [4]string{"mutating p99 / " + sec(mutating), "WAL fsync p99 / " + sec(fsync), "backend commit p99 / " + sec(commit), "busiest member CPU / its budget"}
}

// sizeFigure is the lines of probes' shares along x (ps in the order of
// x), and each probe's verdict at its worst share. Failed probes measured nothing and are left
// out.
func sizeFigure(s *result.Size, ps []result.SizeProbe, x func(result.SizeProbe) float64) figData {
	mu, fs, co := sizeLimits(s)
	names := sizeSeriesNames(mu, fs, co)
	f := figData{Kind: "lines", YLabel: "share of its SLO limit", Limit: &figMark{V: 1, Label: "SLO limit"}}
	series := make([]figSeries, len(names))
	for i, n := range names {
		series[i].Name = n
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		if p.Error != "" || p.NotRun != "" { // nothing measured to plot
			continue
		}
		xv := x(p)
		sh := sizeShares(p, mu, fs, co)
		worst := 0.0
		for i, v := range sh {
			series[i].X, series[i].Y = append(series[i].X, xv), append(series[i].Y, v)
			worst = math.Max(worst, v)
		}
		f.Verdicts = append(f.Verdicts, figVerdict{X: xv, Y: worst, Verdict: sizeVerdict(p)})
		if !slices.Contains(f.XTicks, xv) {
			f.XTicks = append(f.XTicks, xv)
		}
		lo, hi = math.Min(lo, xv), math.Max(hi, xv)
	}
	f.Series = series
	f.LogX = lo > 0 && hi/lo >= 8
	return f
}

// sizeKneeFigure is a candidate's knee chart: its probes along the
// target's nodes (or multiplier, for a profile), the target and the knee
// marked. ok is false for a candidate with no probe that measured.
func sizeKneeFigure(s *result.Size, c result.SizeCandidate, id string) (figData, bool) {
	byNodes := s.Target.Nodes > 0
	for _, p := range c.Probes {
		byNodes = byNodes && (p.Error != "" || p.Nodes > 0)
	}
	x := func(p result.SizeProbe) float64 { return p.Multiplier }
	xl := "multiplier of the target"
	if byNodes {
		x = func(p result.SizeProbe) float64 { return float64(p.Nodes) }
		xl = "Kubernetes nodes"
	}
	if c.Error != "" {
		return figData{}, false
	}
	f := sizeFigure(s, sizeSorted(c.Probes, false), x)
	if len(f.Verdicts) == 0 {
		return figData{}, false
	}
	f.ID, f.XLabel = id, xl
	f.Title = fmt.Sprintf("%s (%s, %s): the judged figures along the target's size", c.Name, sizeShape(c), sizeDisk(c.Disk))
	target, knee := 1.0, c.Knee
	if byNodes {
		target, knee = float64(s.Target.Nodes), float64(c.KneeNodes)
	}
	kneeLabel := "knee"
	switch {
	case c.Above:
		kneeLabel += " ≥"
	case c.Below:
		kneeLabel += " ≤"
	}
	if byNodes {
		kneeLabel += " " + humanize.Comma(int64(c.KneeNodes))
	} else {
		kneeLabel += fmt.Sprintf(" ×%g", c.Knee)
	}
	switch {
	case knee > 0 && knee == target:
		f.Events = []figMark{{V: target, Label: "target = " + kneeLabel}}
	case knee > 0:
		f.Events = []figMark{{V: target, Label: "target"}, {V: knee, Label: kneeLabel}}
	default:
		f.Events = []figMark{{V: target, Label: "target"}}
	}
	return f, true
}

// sizeRTTFigure is the round-trip chart: the probes along the round trip
// between members, with the budget and OpenShift's rule marked.
func sizeRTTFigure(s *result.Size) (figData, bool) {
	r := s.RTT
	if r == nil {
		return figData{}, false
	}
	f := sizeFigure(s, sizeSorted(r.Probes, true), func(p result.SizeProbe) float64 { return p.RTTMs })
	if len(f.Verdicts) == 0 {
		return figData{}, false
	}
	f.ID, f.XLabel, f.LogX = "size-rtt", "round trip between members (ms)", false
	f.Title = fmt.Sprintf("%s at the target: the judged figures along the round trip, beside OpenShift's rule", r.Candidate)
	budget := "budget " + msOr(r.BudgetMs, "0 ms")
	if r.Above {
		budget = "budget ≥ " + msOr(r.BudgetMs, "0 ms")
	}
	if r.OpenShiftAvgMs > 0 {
		f.Events = append(f.Events, figMark{V: r.OpenShiftAvgMs, Label: "OpenShift avg < " + msOr(r.OpenShiftAvgMs, "")})
	}
	if r.OpenShiftMaxMs > 0 {
		f.Events = append(f.Events, figMark{V: r.OpenShiftMaxMs, Label: "max < " + msOr(r.OpenShiftMaxMs, "")})
	}
	if r.BudgetMs > 0 {
		f.Events = append(f.Events, figMark{V: r.BudgetMs, Label: budget})
	}
	return f, true
}
