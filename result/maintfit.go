package result

import (
	"math"
	"slices"
)

// DefragCurve is the defragmentation time against the data on one setup
// (a disk class): every defragmentation of its cells, and the
// least-squares line seconds = Intercept + SecondsPerGiB × GiB in use
// through them, with the fit's error. The bytes in use, not the file, are
// what a defragmentation copies into its new file (the free pages are
// left behind); the built-in's cells at one file size and 20%, 50% and
// 80% free are the check (docs/maintenance.md). It is a plain value.
type DefragCurve struct {
	Setup  string        `json:"setup"`
	Points []DefragPoint `json:"points"`
	// Sizes is the number of distinct sizes of the data in use; the line
	// is fitted (Fitted) from MinFitSizes of them.
	Sizes  int  `json:"sizes"`
	Fitted bool `json:"fitted"`
	// SecondsPerGiB is the slope (per GiB in use), SlopeError its
	// standard error;
	// Intercept the seconds at no data (a defragmentation's fixed cost).
	SecondsPerGiB float64 `json:"seconds_per_gib"`
	SlopeError    float64 `json:"slope_error"`
	Intercept     float64 `json:"intercept_seconds"`
	// RMSError is the residuals' root mean square, in seconds;
	// MaxRelError the largest residual over its point's time.
	RMSError    float64 `json:"rms_error_seconds"`
	MaxRelError float64 `json:"max_rel_error"`
	// MedianRate is the median of the points' seconds per GiB in use: a
	// rate through the origin, for an estimate ("about N s for this
	// member's data") that a poor line's intercept would mislead.
	MedianRate float64 `json:"median_seconds_per_gib"`
	// BlockedPerGiB is the same line's slope through the member's longest
	// blocked window (what its clients saw), 0 when none was measured.
	BlockedPerGiB float64 `json:"blocked_per_gib,omitempty"`
}

// DefragPoint is one defragmentation: the database file before and the
// bytes in use in it (the file's when its member did not say), the share
// of it free, how long the call took and how long the member did not
// answer.
type DefragPoint struct {
	Cell           string  `json:"cell"`
	Member         string  `json:"member"`
	GiB            float64 `json:"gib"`
	InUseGiB       float64 `json:"in_use_gib"`
	Fragmentation  float64 `json:"fragmentation"`
	Seconds        float64 `json:"seconds"`
	BlockedSeconds float64 `json:"blocked_seconds"`
}

// MinFitSizes is how many database sizes a curve needs to be fitted.
const MinFitSizes = 4

// DefragCurves gathers the defragmentations of the curve's cells (the
// maintenance cells that defragment one member, a follower: a policy's
// leader and back-to-back turns are its own figures), by setup in the
// order first met, and fits each setup's line.
func DefragCurves(cells []Cell) []DefragCurve {
	var out []DefragCurve
	at := map[string]int{}
	for _, c := range cells {
		if c.Maintenance == nil || c.Maintenance.Order != OrderFollower {
			continue
		}
		for _, r := range c.Maintenance.Rounds {
			for _, o := range r.Ops {
				if o.Op != OpDefragment || o.Error != "" || o.DBBytesBefore <= 0 {
					continue
				}
				i, ok := at[c.Setup]
				if !ok {
					i = len(out)
					at[c.Setup] = i
					out = append(out, DefragCurve{Setup: c.Setup})
				}
				frag, inUse := 0.0, o.DBBytesBefore
				if o.DBInUseBefore > 0 {
					frag, inUse = 1-float64(o.DBInUseBefore)/float64(o.DBBytesBefore), o.DBInUseBefore
				}
				out[i].Points = append(out[i].Points, DefragPoint{Cell: c.ID, Member: o.Member, GiB: float64(o.DBBytesBefore) / (1 << 30),
					InUseGiB: float64(inUse) / (1 << 30), Fragmentation: frag, Seconds: o.Seconds, BlockedSeconds: o.BlockedSeconds()})
			}
		}
	}
	for i := range out {
		out[i].fit()
	}
	return out
}

// fit fits the line when the points hold MinFitSizes distinct sizes
// (sizes within 5% of each other count once).
func (d *DefragCurve) fit() {
	var sizes []float64
	for _, p := range d.Points {
		if !slices.ContainsFunc(sizes, func(s float64) bool { return math.Abs(s-p.InUseGiB) <= 0.05*max(s, p.InUseGiB) }) {
			sizes = append(sizes, p.InUseGiB)
		}
	}
	d.Sizes = len(sizes)
	var rates []float64
	for _, p := range d.Points {
		if p.InUseGiB > 0 {
			rates = append(rates, p.Seconds/p.InUseGiB)
		}
	}
	if len(rates) > 0 {
		slices.Sort(rates)
		d.MedianRate = rates[len(rates)/2]
		if len(rates)%2 == 0 {
			d.MedianRate = (rates[len(rates)/2-1] + rates[len(rates)/2]) / 2
		}
	}
	if d.Sizes < MinFitSizes {
		return
	}
	xs := make([]float64, len(d.Points))
	ys := make([]float64, len(d.Points))
	bs := make([]float64, len(d.Points))
	for i, p := range d.Points {
		xs[i], ys[i], bs[i] = p.InUseGiB, p.Seconds, p.BlockedSeconds
	}
	a, b, se, rms := line(xs, ys)
	d.Fitted, d.Intercept, d.SecondsPerGiB, d.SlopeError, d.RMSError = true, a, b, se, rms
	for i := range xs {
		if ys[i] > 0 {
			d.MaxRelError = max(d.MaxRelError, math.Abs(ys[i]-(a+b*xs[i]))/ys[i])
		}
	}
	if _, bb, _, _ := line(xs, bs); slices.ContainsFunc(bs, func(v float64) bool { return v > 0 }) {
		d.BlockedPerGiB = bb
	}
}

// line is the least-squares line y = a + b x through the points, the
// slope's standard error and the residuals' root mean square.
func line(xs, ys []float64) (a, b, slopeErr, rms float64) {
	n := float64(len(xs))
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return my, 0, 0, 0
	}
	b = sxy / sxx
	a = my - b*mx
	var ss float64
	for i := range xs {
		r := ys[i] - (a + b*xs[i])
		ss += r * r
	}
	rms = math.Sqrt(ss / n)
	if n > 2 {
		slopeErr = math.Sqrt(ss / (n - 2) / sxx)
	}
	return a, b, slopeErr, rms
}

// PolicyFigures are a policy's figures over its rounds, each a mean and
// its spread: the worst p99 and p99.9 of any operation of the load during
// the maintenance, the errors, the longest blocked window, and the leader
// changes. It is a plain value.
type PolicyFigures struct {
	Cell          string `json:"cell"`
	Workload      string `json:"workload"`
	Setup         string `json:"setup"`
	Policy        string `json:"policy"`
	Base          bool   `json:"base,omitempty"`
	Rounds        int    `json:"rounds"`
	WorstP99      MeanSD `json:"worst_p99_seconds"`
	WorstP999     MeanSD `json:"worst_p999_seconds"`
	BeforeP99     MeanSD `json:"before_p99_seconds"`
	Errors        MeanSD `json:"errors"`
	Blocked       MeanSD `json:"blocked_seconds"`
	LeaderChanges MeanSD `json:"leader_changes"`
	// Ops is how many operations ran over all rounds, Skipped how many
	// the trigger left.
	Ops     int `json:"ops"`
	Skipped int `json:"skipped"`
}

// Policies are the figures of every maintenance cell with a load whose
// policy goes over every member (followers first or the leader first),
// in the cells' order.
func Policies(cells []Cell) []PolicyFigures {
	var out []PolicyFigures
	for _, c := range cells {
		m := c.Maintenance
		if m == nil || m.Load == "" || len(m.Rounds) == 0 || (m.Order != OrderLeaderLast && m.Order != OrderLeaderFirst) {
			continue
		}
		p := PolicyFigures{Cell: c.ID, Workload: c.Workload, Setup: c.Setup, Policy: m.Policy, Base: m.Base, Rounds: len(m.Rounds)}
		var p99, p999, before, errs, blocked, leaders []float64
		for _, r := range m.Rounds {
			w99, _ := r.WorstP99()
			w999, _ := r.WorstP999()
			p99, p999, before = append(p99, w99), append(p999, w999), append(before, r.BeforeP99())
			errs, blocked = append(errs, float64(r.Errors())), append(blocked, r.Blocked())
			leaders = append(leaders, float64(max(r.LeaderChanges, 0)))
			p.Ops += len(r.Ops)
			p.Skipped += len(r.Skipped)
		}
		p.WorstP99, p.WorstP999, p.BeforeP99 = MeanSDOf(p99), MeanSDOf(p999), MeanSDOf(before)
		p.Errors, p.Blocked, p.LeaderChanges = MeanSDOf(errs), MeanSDOf(blocked), MeanSDOf(leaders)
		out = append(out, p)
	}
	return out
}
