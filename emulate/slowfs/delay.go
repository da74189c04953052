// Package slowfs emulates a slow disk for one directory: a FUSE passthrough
// file system (go-fuse v2's loopback) that adds a delay, fixed or drawn from
// a distribution, to every fsync and fdatasync and, if asked, to every
// read that reaches the disk and every O_DIRECT write, and leaves
// everything else untouched. A local cluster mounts it over a member's
// data directory to ask "what would this disk do to etcd?".
package slowfs

import (
	"fmt"
	"math"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"
)

// Delay is the latency added to each sync (and, where Options ask, each
// read or direct write). Safe for concurrent use.
type Delay struct {
	spec string
	// fixed, or lognormal with mu and sigma of ln(seconds)
	fixed     time.Duration
	lognormal bool
	mu, sigma float64
	// knots, when set, are a fitted delay's percentiles (fit.go).
	knots []knot
	mu2   sync.Mutex
	rnd   *mrand.Rand
}

// ParseDelay reads "10ms" (fixed), "lognormal:p50=20ms,p99=270ms" (a
// log-normal distribution through those two percentiles: the HDD article's
// disk) or "fit:p99=6.4ms,p99.5=9.1ms,p99.9=13.7ms" (a distribution
// through every percentile given: log-normal between each two, so each is
// met; see Fit), or "fit:file=PATH" (the same, through the sync
// percentiles from p50 up that fio printed to PATH, as text or JSON: see
// fitfile.go). An error quotes the text and says what is wrong with it;
// the caller says where the text came from. A relative PATH is taken from
// the current directory; ParseDelayIn takes it from another.
func ParseDelay(s string) (*Delay, error) { return ParseDelayIn(s, "") }

// ParseDelayIn is ParseDelay with a relative fit:file= path taken from dir
// (the directory of the file the text was in); "" is the current one.
func ParseDelayIn(s, dir string) (*Delay, error) {
	d := &Delay{spec: s, rnd: newRand()}
	if rest, ok := strings.CutPrefix(s, fitPrefix); ok {
		var ks []knot
		var err error
		if strings.HasPrefix(rest, fitFileKey) {
			ks, err = fitFromFile(s, strings.TrimPrefix(resolveFitFile(s, dir), fitPrefix+fitFileKey))
		} else {
			ks, err = parseFit(s, rest)
		}
		if err != nil {
			return nil, err
		}
		d.knots = ks
		return d, nil
	}
	rest, ok := strings.CutPrefix(s, "lognormal:")
	if !ok {
		v, err := time.ParseDuration(s)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q: want a duration (10ms), lognormal:p50=20ms,p99=270ms, fit:p50=2ms,p99=6.4ms,p99.9=13.7ms or fit:file=FIO-OUTPUT", s)
		}
		d.fixed = v
		return d, nil
	}
	var p50, p99 time.Duration
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		x, err := time.ParseDuration(v)
		if err != nil || x <= 0 {
			return nil, fmt.Errorf("%q: %q is not a positive duration", s, v)
		}
		switch k {
		case "p50":
			p50 = x
		case "p99":
			p99 = x
		default:
			return nil, fmt.Errorf("%q: unknown parameter %q (want p50 and p99)", s, k)
		}
	}
	if p50 == 0 || p99 <= p50 {
		return nil, fmt.Errorf("%q: need p50 and a larger p99", s)
	}
	const z99 = 2.3263478740408408 // the standard normal's 99th percentile
	d.lognormal = true
	d.mu = math.Log(p50.Seconds())
	d.sigma = (math.Log(p99.Seconds()) - d.mu) / z99
	return d, nil
}

// Sample draws one delay.
func (d *Delay) Sample() time.Duration {
	if !d.lognormal && len(d.knots) == 0 {
		return d.fixed
	}
	d.mu2.Lock()
	z := d.rnd.NormFloat64()
	d.mu2.Unlock()
	if len(d.knots) > 0 {
		return fitted(d.knots, z)
	}
	return time.Duration(math.Exp(d.mu+d.sigma*z) * float64(time.Second))
}

// newRand is a delay's own generator, seeded from the clock.
func newRand() *mrand.Rand { return mrand.New(mrand.NewPCG(1, uint64(time.Now().UnixNano()))) }

// Median is the delay's 50th percentile (a fitted delay's is interpolated
// or extrapolated from its knots).
func (d *Delay) Median() time.Duration {
	switch {
	case len(d.knots) > 0:
		return fitted(d.knots, 0)
	case d.lognormal:
		return time.Duration(math.Exp(d.mu) * float64(time.Second))
	}
	return d.fixed
}

// String returns the specification it was parsed from.
func (d *Delay) String() string { return d.spec }

// Mean is the delay's mean: what a run of many fsyncs pays per fsync
// (its median undercounts a log-normal's long tail: the hdd preset's is
// 23 ms, its mean 40 ms). A fitted delay's mean is integrated over the
// standard normal from -8 to 8 in steps of 1/64. Safe for concurrent use.
func (d *Delay) Mean() time.Duration {
	switch {
	case !d.lognormal && len(d.knots) == 0:
		return d.fixed
	case len(d.knots) == 0:
		return time.Duration(math.Exp(d.mu+d.sigma*d.sigma/2) * float64(time.Second))
	}
	const step = 1.0 / 64
	var sum float64
	for z := -8.0; z <= 8; z += step {
		sum += float64(fitted(d.knots, z)) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) * step
	}
	return time.Duration(sum)
}
