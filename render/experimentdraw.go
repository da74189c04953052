package render

import (
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/dustin/go-humanize"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// eventColour marks fault events: a grey apart from the series' palette.
var eventColour = color.RGBA{110, 110, 110, 255} //nolint:gochecknoglobals // constant

// draw turns a figure's data into a chart: SVG and the table of its
// numbers.
func (f figData) draw(prefix string) (Chart, error) {
	var c Chart
	var err error
	if f.Kind == "bars" {
		c, err = f.drawBars()
	} else {
		c, err = f.drawLines()
	}
	c.ID, c.Title, c.Table = prefix+f.ID, f.Title, f.table()
	return c, err
}

func (f figData) drawLines() (Chart, error) {
	p := newPlot(f.Title, f.XLabel, f.YLabel)
	if f.LogY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if f.LogX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	n := 0
	x0, x1 := math.Inf(1), math.Inf(-1)
	for i, s := range f.Series {
		xy := make(plotter.XYs, len(s.Y))
		for k := range s.Y {
			xy[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		if f.LogX || f.LogY {
			xy = positive(xy, f.LogX, f.LogY)
		}
		if len(xy) == 0 {
			continue
		}
		for _, v := range xy {
			x0, x1 = math.Min(x0, v.X), math.Max(x1, v.X)
		}
		switch {
		case s.Published:
			sc, err := plotter.NewScatter(xy)
			if err != nil {
				return Chart{}, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: colour(i), Radius: vg.Points(4.5), Shape: draw.TriangleGlyph{}}
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
		case f.Lines:
			l, err := plotter.NewLine(xy)
			if err != nil {
				return Chart{}, err
			}
			l.Color, l.Width = colour(i), vg.Points(1.2)
			p.Add(l)
			p.Legend.Add(s.Name, l)
		default:
			l, pts, err := plotter.NewLinePoints(xy)
			if err != nil {
				return Chart{}, err
			}
			l.Color, pts.Color, l.Width = colour(i), colour(i), vg.Points(1.5)
			p.Add(l, pts)
			p.Legend.Add(s.Name, l, pts)
		}
		n++
	}
	if len(f.XTicks) > 0 {
		ticks := make([]plot.Tick, len(f.XTicks))
		for i, x := range f.XTicks {
			ticks[i] = plot.Tick{Value: x, Label: humanize.Commaf(x)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
	}
	if err := addVerdicts(p, f.Verdicts, f.LogX, f.LogY); err != nil {
		return Chart{}, err
	}
	if f.Limit != nil && !math.IsInf(x0, 0) {
		p.Add(thresholdLine(f.Limit.V, x0, x1, f.Limit.Label, p))
		p.Y.Max = math.Max(p.Y.Max, f.Limit.V)
	}
	if f.Floor != nil && !math.IsInf(x0, 0) {
		p.Add(floorLine(f.Floor.V, x0, x1, f.Floor.Label, p))
	}
	// Counts and rates start at 0; room above the data keeps the legend
	// off the lines.
	if f.LogY {
		p.Y.Max *= 3
	} else {
		p.Y.Min = math.Min(0, p.Y.Min)
		if p.Y.Max <= p.Y.Min {
			p.Y.Max = p.Y.Min + 1
		}
		p.Y.Max += (p.Y.Max - p.Y.Min) * 0.2
	}
	if err := addEvents(p, f.Events); err != nil {
		return Chart{}, err
	}
	svg, err := render(p)
	return Chart{SVG: svg, Series: n}, err
}

// verdictGlyphs are how a judged point is marked: a green ring held, a
// red cross broke, a grey square judged nothing.
var verdictGlyphs = []struct { //nolint:gochecknoglobals // constant table
	verdict, label string
	style          draw.GlyphStyle
}{
	{"held", "held", draw.GlyphStyle{Color: color.RGBA{27, 120, 55, 255}, Radius: vg.Points(6), Shape: draw.RingGlyph{}}},
	{"broke", "broke", draw.GlyphStyle{Color: color.RGBA{200, 0, 0, 255}, Radius: vg.Points(6), Shape: draw.CrossGlyph{}}},
	{"inconclusive", "inconclusive (not judged)", draw.GlyphStyle{Color: eventColour, Radius: vg.Points(6), Shape: draw.SquareGlyph{}}},
}

// addVerdicts marks each judged point with its verdict's glyph, one
// legend entry per verdict drawn.
func addVerdicts(p *plot.Plot, vs []figVerdict, logX, logY bool) error {
	for _, g := range verdictGlyphs {
		var xy plotter.XYs
		for _, v := range vs {
			if v.Verdict == g.verdict {
				xy = append(xy, plotter.XY{X: v.X, Y: v.Y})
			}
		}
		if logX || logY {
			xy = positive(xy, logX, logY)
		}
		if len(xy) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return err
		}
		sc.GlyphStyle = g.style
		p.Add(sc)
		p.Legend.Add(g.label, sc)
	}
	return nil
}

// addEvents draws each event as a dashed vertical line across the plot's
// range, labelled at its top.
func addEvents(p *plot.Plot, events []figMark) error {
	if len(events) == 0 {
		return nil
	}
	y0, y1 := p.Y.Min, p.Y.Max
	if y1 <= y0 {
		y1 = y0 + 1
	}
	var lab plotter.XYLabels
	for _, e := range events {
		l, err := plotter.NewLine(plotter.XYs{{X: e.V, Y: y0}, {X: e.V, Y: y1}})
		if err != nil {
			return err
		}
		l.Color, l.Width, l.Dashes = eventColour, vg.Points(1), []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
	}
	// A label within a tenth of the axis of the one before it goes a line
	// lower, so close events stay readable.
	byX := slices.Clone(events)
	sort.SliceStable(byX, func(i, j int) bool { return byX[i].V < byX[j].V })
	prev, drop := math.Inf(-1), 0
	for _, e := range byX {
		at := p.X.Scale.Normalize(p.X.Min, p.X.Max, e.V)
		if at-prev < 0.1 {
			drop++
		} else {
			drop = 0
		}
		prev = at
		lab.XYs = append(lab.XYs, plotter.XY{X: e.V, Y: y1 - (y1-y0)*0.06*float64(drop)})
		lab.Labels = append(lab.Labels, " "+e.Label)
	}
	labels, err := plotter.NewLabels(lab)
	if err != nil {
		return err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].Color = eventColour
		labels.TextStyle[i].Font = font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(8)}
	}
	p.Add(labels)
	return nil
}

func (f figData) drawBars() (Chart, error) {
	p := newPlot(f.Title, "", f.YLabel)
	groups := len(f.Series)
	w := vg.Points(math.Max(6, math.Min(40, 300/float64(len(f.Categories)*max(1, groups)))))
	for g, s := range f.Series {
		b, err := plotter.NewBarChart(plotter.Values(s.Y), w)
		if err != nil {
			return Chart{}, err
		}
		b.Color = colour(g)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(float64(g)-float64(groups-1)/2)
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	p.NominalX(f.Categories...)
	p.Y.Max *= 1.2 // room for the legend
	svg, err := render(p)
	return Chart{SVG: svg, Series: groups}, err
}

// table lists a figure's numbers: bars by category; lines by x when they
// are short, else each series' count, minimum, mean and maximum.
func (f figData) table() Table {
	if f.Kind == "bars" {
		t := Table{Header: append([]string{f.YLabel}, f.Categories...)}
		for _, s := range f.Series {
			row := []string{s.Name}
			for _, v := range s.Y {
				if s.Published && v == 0 {
					row = append(row, "-")
				} else {
					row = append(row, fnum(v))
				}
			}
			t.Rows = append(t.Rows, row)
		}
		return t
	}
	xs := map[float64]bool{}
	for _, s := range f.Series {
		for _, x := range s.X {
			xs[x] = true
		}
	}
	if len(xs) > pointsDrawn {
		t := Table{Header: []string{"series (" + f.YLabel + ")", "points", "min", "mean", "max"}}
		for _, s := range f.Series {
			mn, mx, sum := math.Inf(1), math.Inf(-1), 0.0
			for _, v := range s.Y {
				mn, mx, sum = math.Min(mn, v), math.Max(mx, v), sum+v
			}
			t.Rows = append(t.Rows, []string{s.Name, strconv.Itoa(len(s.Y)), fnum(mn), fnum(sum / float64(max(1, len(s.Y)))), fnum(mx)})
		}
		return t
	}
	keys := make([]float64, 0, len(xs))
	for x := range xs {
		keys = append(keys, x)
	}
	sort.Float64s(keys)
	t := Table{Header: []string{f.XLabel}}
	for _, s := range f.Series {
		t.Header = append(t.Header, s.Name+" ("+f.YLabel+")")
	}
	for _, x := range keys {
		row := []string{fnum(x)}
		for _, s := range f.Series {
			cell := "-"
			for k := range s.X {
				if s.X[k] == x {
					cell = fnum(s.Y[k])
				}
			}
			row = append(row, cell)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// fnum renders a chart's number with the precision its size needs.
func fnum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100 || v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
