package render

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

const (
	// maxPanelCells bounds the cells that get panels over time; beyond
	// it, only cells with faults and each setup's highest load get them.
	maxPanelCells = 6
	// maxPanelPoints bounds the points drawn per series of a panel; longer
	// series are thinned by keeping each stretch's extreme.
	maxPanelPoints = 600
	// pointsDrawn is the length from which a series is drawn as a line
	// without a mark at each point.
	pointsDrawn = 60
)

// panelFigures are the panels over time (the multi-cloud article's Grafana
// dashboard): per cell, members with a leader and leader changes, peer
// round trip, slow applies, request latency and requests per second, with
// the fault events marked. The note says which cells were left out.
func (m expModel) panelFigures() ([]figData, string) {
	var cands []int
	for i, c := range m.Cells {
		if r := panelRun(c.Cell); r != nil {
			cands = append(cands, i)
		}
	}
	chosen := cands
	note := ""
	if len(cands) > maxPanelCells {
		keep := map[int]bool{}
		for _, i := range cands {
			c := m.Cells[i]
			if len(c.Cell.Faults) > 0 || c.M.ClusterUnavailableSeconds > 0 || c.M.LeaderChanges > 0 {
				keep[i] = true
			}
		}
		for l := range m.Sweep.Lines {
			line := m.Sweep.Lines[l]
			for k := len(line.Cells) - 1; k >= 0; k-- {
				if i := line.Cells[k]; panelRun(m.Cells[i].Cell) != nil {
					keep[i] = true
					break
				}
			}
		}
		chosen = nil
		for _, i := range cands {
			if keep[i] {
				chosen = append(chosen, i)
			}
		}
		note = fmt.Sprintf("Panels over time are drawn for %d of the %d cells measured (those with faults or leader changes, and each setup's highest load); the tables have every cell's figures.", len(chosen), len(cands))
	}
	var out []figData
	for _, i := range chosen {
		out = append(out, panels(i, m.Cells[i].Cell)...)
	}
	return out, note
}

// panelRun is the run a cell's panels show: the one its first fault
// happened in, else its first measured run with a server or client time
// series; nil when there is none.
func panelRun(c *result.Cell) *result.Run {
	var first *result.Run
	for i := range c.Runs {
		r := &c.Runs[i]
		if r.Server == nil && len(r.TimeSeries) == 0 {
			continue
		}
		if first == nil {
			first = r
		}
		if len(c.Faults) > 0 && !c.Faults[0].Time.IsZero() && !c.Faults[0].Time.Before(r.Start) && !c.Faults[0].Time.After(r.End) {
			return r
		}
	}
	return first
}

// panels are one cell's panels over time.
func panels(k int, c *result.Cell) []figData {
	r := panelRun(c)
	start := r.Start
	switch {
	case !start.IsZero():
	case len(r.TimeSeries) > 0:
		start = time.Unix(r.TimeSeries[0].UnixSecond, 0)
	case r.Server != nil && len(r.Server.Members) > 0 && len(r.Server.Members[0].Points) > 0:
		start = time.UnixMilli(r.Server.Members[0].Points[0].UnixMillis).Add(-time.Duration(r.Server.IntervalSeconds * float64(time.Second)))
	}
	id := fmt.Sprintf("exp-cell%d-", k)
	name := c.ID
	if r.Iteration > 0 && len(c.Runs) > 1 {
		name += " (iteration " + strconv.Itoa(r.Iteration) + ")"
	}
	var events []figMark
	for _, e := range c.Faults {
		x := e.AtSeconds
		if !e.Time.IsZero() && !start.IsZero() {
			x = e.Time.Sub(start).Seconds()
		}
		events = append(events, figMark{V: x, Label: strings.TrimSpace(e.Action + " " + e.Target)})
	}
	fig := func(suffix, title, y string, ss []figSeries) figData {
		f := figData{ID: id + suffix, Title: name + ": " + title, Kind: "lines", XLabel: "seconds since the run's start", YLabel: y, Series: ss, Events: events}
		for _, s := range ss {
			f.Lines = f.Lines || len(s.Y) > pointsDrawn
		}
		return f
	}
	var out []figData
	if srv := r.Server; srv != nil && len(srv.Members) > 0 {
		since := func(ms int64) float64 { return float64(ms)/1000 - float64(start.UnixMilli())/1000 }
		if h := health(srv, since); len(h) > 0 {
			out = append(out, fig("health", "members with a leader, and leader changes", "members / changes", h))
		}
		perMember := func(v func(p result.ServerPoint, sum float64) (float64, bool)) []figSeries {
			var ss []figSeries
			for _, mb := range srv.Members {
				s := figSeries{Name: mb.Name}
				sum := 0.0
				for _, p := range mb.Points {
					if y, ok := v(p, sum); ok {
						s.X, s.Y = append(s.X, since(p.UnixMillis)), append(s.Y, y)
					}
					sum += p.SlowApplies
				}
				if len(s.Y) > 0 {
					s.X, s.Y = thin(s.X, s.Y, math.Max)
					ss = append(ss, s)
				}
			}
			return ss
		}
		if ss := perMember(func(p result.ServerPoint, _ float64) (float64, bool) { return p.PeerRTTP99 * 1000, p.PeerRTTP99 > 0 }); len(ss) > 0 {
			out = append(out, fig("rtt", "peer round trip p99 per member", "round trip p99 (ms)", ss))
		}
		if ss := perMember(func(p result.ServerPoint, sum float64) (float64, bool) { return sum + p.SlowApplies, true }); len(ss) > 0 {
			out = append(out, fig("slow-applies", "slow applies per member (cumulative)", "slow applies", ss))
		}
	}
	if len(r.TimeSeries) > 0 {
		mean, mx := figSeries{Name: "mean"}, figSeries{Name: "max"}
		reqs, errs := figSeries{Name: "successful"}, figSeries{Name: "failed"}
		for _, p := range r.TimeSeries {
			x := float64(p.UnixSecond) - float64(start.UnixMilli())/1000
			reqs.X, reqs.Y = append(reqs.X, x), append(reqs.Y, float64(p.Requests))
			errs.X, errs.Y = append(errs.X, x), append(errs.Y, float64(p.Errors))
			if p.Requests > 0 {
				mean.X, mean.Y = append(mean.X, x), append(mean.Y, p.Mean*1000)
				mx.X, mx.Y = append(mx.X, x), append(mx.Y, p.Max*1000)
			}
		}
		mean.X, mean.Y = thin(mean.X, mean.Y, math.Max)
		mx.X, mx.Y = thin(mx.X, mx.Y, math.Max)
		reqs.X, reqs.Y = thin(reqs.X, reqs.Y, math.Min)
		errs.X, errs.Y = thin(errs.X, errs.Y, math.Max)
		if len(mean.Y) > 0 {
			out = append(out, fig("latency", "request latency per second", "latency (ms)", []figSeries{mean, mx}))
		}
		out = append(out, fig("requests", "requests per second", "requests per second", []figSeries{reqs, errs}))
	}
	return out
}

// health counts, per scrape interval, the members that answered with a
// leader, and the leader changes so far (as the member that saw most).
func health(srv *result.Server, since func(int64) float64) []figSeries {
	iv := srv.IntervalSeconds
	if iv <= 0 {
		iv = 1
	}
	type bucket struct{ leaders, changes float64 }
	buckets := map[int64]*bucket{}
	for _, mb := range srv.Members {
		cum := 0.0
		for _, p := range mb.Points {
			cum += p.LeaderChanges
			k := int64(math.Round(since(p.UnixMillis) / iv))
			b := buckets[k]
			if b == nil {
				b = &bucket{}
				buckets[k] = b
			}
			if p.HasLeader {
				b.leaders++
			}
			b.changes = math.Max(b.changes, cum)
		}
	}
	if len(buckets) == 0 {
		return nil
	}
	keys := make([]int64, 0, len(buckets))
	for k := range buckets {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	leaders, changes := figSeries{Name: "members that answered with a leader"}, figSeries{Name: "leader changes so far"}
	for _, k := range keys {
		x := float64(k) * iv
		leaders.X, leaders.Y = append(leaders.X, x), append(leaders.Y, buckets[k].leaders)
		changes.X, changes.Y = append(changes.X, x), append(changes.Y, buckets[k].changes)
	}
	leaders.X, leaders.Y = thin(leaders.X, leaders.Y, math.Min)
	changes.X, changes.Y = thin(changes.X, changes.Y, math.Max)
	return []figSeries{leaders, changes}
}

// thin keeps at most maxPanelPoints points: consecutive stretches are
// merged into their first x and the extreme (keep: math.Max or math.Min)
// of their y, so a spike or a dip stays visible.
func thin(xs, ys []float64, keep func(a, b float64) float64) ([]float64, []float64) {
	if len(ys) <= maxPanelPoints {
		return xs, ys
	}
	step := (len(ys) + maxPanelPoints - 1) / maxPanelPoints
	var ox, oy []float64
	for i := 0; i < len(ys); i += step {
		y := ys[i]
		for j := i + 1; j < min(i+step, len(ys)); j++ {
			y = keep(y, ys[j])
		}
		ox, oy = append(ox, xs[i]), append(oy, y)
	}
	return ox, oy
}
