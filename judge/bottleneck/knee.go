package bottleneck

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// KneeFactor is how far a line's figure must degrade against its first
// point to pass its knee: half the throughput, or twice the time to
// Ready. Past it, the swept dimension (the distance between members) no
// longer adds to the time a request takes: it is the time.
const KneeFactor = 2

// kneePoint is one cell of a line: its x along the knee's param and its
// figure.
type kneePoint struct {
	x, v          float64
	leaderChanges float64
	unavailable   float64
}

// Knees finds, for each line of exp along exp.KneeParam (the cells alike
// in workload and every other param, ordered by that param), the last
// point within KneeFactor of the first and the first past it: throughput
// for a bench line, time to every pod Ready for a Kubernetes one. It also
// says from where the cluster changed leader or was unavailable. nil
// when exp has no KneeParam or no line has two points that ran.
func Knees(exp *result.Experiment) []result.Knee {
	param := exp.KneeParam
	if param == "" {
		return nil
	}
	lines := map[string][]kneePoint{}
	kubeLine := map[string]bool{}
	var order []string
	for i := range exp.Cells {
		c := &exp.Cells[i]
		xs, ok := c.Params[param]
		x, err := strconv.ParseFloat(xs, 64)
		if !ok || err != nil || c.Status != result.CellOK {
			continue
		}
		m := result.MeasureCell(c)
		if m.Runs == 0 {
			continue
		}
		kube, v := kneeFigure(c, m)
		if v <= 0 {
			continue
		}
		name := lineName(c, param)
		if _, seen := lines[name]; !seen {
			order = append(order, name)
		}
		kubeLine[name] = kube
		lines[name] = append(lines[name], kneePoint{x: x, v: v, leaderChanges: m.LeaderChanges, unavailable: m.ClusterUnavailableSeconds})
	}
	var out []result.Knee
	for _, name := range order {
		pts := lines[name]
		if len(pts) < 2 {
			continue
		}
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
		k := knee(name, param, kubeLine[name], pts)
		k.Statement += placeMarks(k, exp.Marks)
		out = append(out, k)
	}
	return out
}

// kneeFigure is a cell's figure for its knee: the mean time to every pod
// Ready for a Kubernetes cell (kube true), else its throughput.
func kneeFigure(c *result.Cell, m result.Measures) (kube bool, v float64) {
	var ttr []float64
	for _, r := range c.Runs {
		if r.Kube != nil {
			kube = true
			if r.Kube.TimeToReadySeconds > 0 {
				ttr = append(ttr, r.Kube.TimeToReadySeconds)
			}
		}
	}
	if kube {
		return true, result.MeanSDOf(ttr).Mean
	}
	return false, m.Throughput.Mean
}

// lineName names a line by its workload and every param but the knee's
// and the setup (the setups are the points along a distance).
func lineName(c *result.Cell, param string) string {
	parts := []string{c.Workload}
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		if k != param && k != "setup" && k != "workload" {
			parts = append(parts, k+"="+c.Params[k])
		}
	}
	return strings.Join(parts, " ")
}

// knee judges one line.
func knee(name, param string, kube bool, pts []kneePoint) result.Knee {
	base := pts[0]
	k := result.Knee{Line: name, Param: param, Metric: result.MetricThroughput.Metric().What, BaseX: base.x, BaseValue: base.v, Factor: KneeFactor}
	past := func(p kneePoint) bool { return p.v <= base.v/KneeFactor }
	show := func(v float64) string { return count(v) + " req/s" }
	share := func(v float64) string { return ratio(v / base.v) }
	if kube {
		k.Metric = result.MetricTimeToReady.Metric().What
		past = func(p kneePoint) bool { return p.v >= base.v*KneeFactor }
		show = func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " s" }
		share = func(v float64) string { return fmt.Sprintf("%.1f×", v/base.v) }
	}
	last := base
	for _, p := range pts[1:] {
		if past(p) {
			k.Found, k.PastX, k.PastValue = true, p.x, p.v
			break
		}
		last = p
	}
	k.LastX, k.LastValue = last.x, last.v
	verb := "halves"
	if kube {
		verb = "doubles"
	}
	var b strings.Builder
	if k.Found {
		fmt.Fprintf(&b, "%s: %s %s between %s %s (%s, %s of %s's) and %s %s (%s, %s).", name, k.Metric, verb,
			param, xLabel(k.LastX), show(k.LastValue), share(k.LastValue), xLabel(base.x), param, xLabel(k.PastX), show(k.PastValue), share(k.PastValue))
	} else {
		end := pts[len(pts)-1]
		fmt.Fprintf(&b, "%s: no knee up to %s %s: %s %s there, %s of %s's.", name, param, xLabel(end.x), k.Metric, show(end.v), share(end.v), xLabel(base.x))
	}
	for _, p := range pts {
		if p.leaderChanges > 0 || p.unavailable > 0 {
			fmt.Fprintf(&b, " From %s %s the cluster changed leader or was unavailable (%s, %.1f s unavailable there).",
				param, xLabel(p.x), plural(p.leaderChanges, "leader change", "leader changes"), p.unavailable)
			break
		}
	}
	k.Statement = b.String()
	return k
}

// placeMarks says where each of the marks on the knee's param falls
// against the knee: within it, past it, or between the last point within
// and the first past; "" when no mark is on that param.
func placeMarks(k result.Knee, marks []result.Mark) string {
	var b strings.Builder
	for _, m := range marks {
		if m.Param != k.Param {
			continue
		}
		at := k.Param + " " + xLabel(m.At)
		switch {
		case !k.Found && m.At <= k.LastX:
			fmt.Fprintf(&b, " At %s (%s) the line is within its knee.", at, m.Label)
		case !k.Found:
			fmt.Fprintf(&b, " At %s (%s) nothing was measured: the line ends at %s %s.", at, m.Label, k.Param, xLabel(k.LastX))
		case m.At <= k.LastX:
			fmt.Fprintf(&b, " At %s (%s) the line is still within its knee.", at, m.Label)
		case m.At >= k.PastX:
			fmt.Fprintf(&b, " At %s (%s) the line is past its knee.", at, m.Label)
		default:
			fmt.Fprintf(&b, " At %s (%s) the line lies between its last point within the knee and its first past it.", at, m.Label)
		}
	}
	return b.String()
}
