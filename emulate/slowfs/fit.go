package slowfs

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// fitPrefix begins a delay fitted to percentiles someone measured:
// "fit:p50=2ms,p99=6.4ms,p99.9=13.7ms".
const fitPrefix = "fit:"

// maxFitted caps a fitted delay: the tail is extrapolated past the
// highest percentile given.
const maxFitted = time.Minute

// knot is a percentile of a fitted delay: the standard normal score of its
// probability and the log of its delay in seconds.
type knot struct {
	p, z, ln float64
}

// parseFit reads fit's percentiles ("p50=2ms,p99=6.4ms"): at least two,
// increasing, each pN with 0 < N < 100.
func parseFit(s, rest string) ([]knot, error) {
	var ks []knot
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		pct, err := strconv.ParseFloat(strings.TrimPrefix(k, "p"), 64)
		if !strings.HasPrefix(k, "p") || err != nil || !(pct > 0 && pct < 100) {
			return nil, fmt.Errorf("%q: %q is not a percentile (p50, p99, p99.9)", s, k)
		}
		x, err := time.ParseDuration(v)
		if err != nil || x <= 0 {
			return nil, fmt.Errorf("%q: %q is not a positive duration", s, v)
		}
		ks = append(ks, knot{p: pct, z: zScore(pct / 100), ln: math.Log(x.Seconds())})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].p < ks[j].p })
	if len(ks) < 2 {
		return nil, fmt.Errorf("%q: a fit needs two percentiles or more", s)
	}
	for i := 1; i < len(ks); i++ {
		if ks[i].p == ks[i-1].p || ks[i].ln <= ks[i-1].ln {
			return nil, fmt.Errorf("%q: each percentile must be larger than the one below it", s)
		}
	}
	return ks, nil
}

// zScore is the standard normal quantile of probability u.
func zScore(u float64) float64 { return math.Sqrt2 * math.Erfinv(2*u-1) }

// fitted is the delay at standard normal score z: between two given
// percentiles, log-normal through both (ln(delay) linear in z), so each
// given percentile is met exactly; below the lowest and above the highest,
// the nearest segment's log-normal, capped at maxFitted.
func fitted(ks []knot, z float64) time.Duration {
	i := sort.Search(len(ks), func(i int) bool { return ks[i].z >= z })
	i = min(max(i, 1), len(ks)-1)
	a, b := ks[i-1], ks[i]
	ln := a.ln + (z-a.z)*(b.ln-a.ln)/(b.z-a.z)
	return min(time.Duration(math.Exp(ln)*float64(time.Second)), maxFitted)
}

// FitPoint is one percentile of a fitted delay: what was asked and what
// the delay's samples give.
type FitPoint struct {
	Percentile float64
	Want, Got  time.Duration
}

// Fit checks a fitted delay ("fit:...") against the percentiles it was
// given, from n samples of its own (a fresh generator, so the delay's
// draws are untouched); nil for other delays.
func (d *Delay) Fit(n int) []FitPoint {
	if len(d.knots) == 0 {
		return nil
	}
	s := make([]time.Duration, n)
	probe := &Delay{knots: d.knots, rnd: newRand()}
	for i := range s {
		s[i] = probe.Sample()
	}
	slices.Sort(s)
	out := make([]FitPoint, len(d.knots))
	for i, k := range d.knots {
		out[i] = FitPoint{Percentile: k.p, Want: time.Duration(math.Exp(k.ln) * float64(time.Second)), Got: s[min(int(k.p/100*float64(n)), n-1)]}
	}
	return out
}

// FitReport is Fit in one line for a person: "p99 6.376 ms (+0.4%), ...".
func (d *Delay) FitReport() string {
	pts := d.Fit(200000)
	if pts == nil {
		return ""
	}
	parts := make([]string, len(pts))
	for i, p := range pts {
		parts[i] = fmt.Sprintf("p%g %s (%+.1f%%)", p.Percentile, p.Got.Round(time.Microsecond), 100*(p.Got.Seconds()/p.Want.Seconds()-1))
	}
	return "fitted delay, sampled: " + strings.Join(parts, ", ")
}
