package size

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// The search's bounds: doubling from the target up to maxMult (down to
// minMult), then bisection in log space until the knee is known within
// resolution (hi/lo).
const (
	maxMult         = 16
	maxMultQuick    = 8
	minMult         = 1.0 / 16
	resolution      = 1.15
	resolutionQuick = 1.4
)

// prober runs the probe at multiplier m (and round trip rtt) and judges it.
type prober func(ctx context.Context, m float64, rtt time.Duration) result.SizeProbe

// knee finds the largest multiplier of the target at which every SLO held:
// the target first, then doubling up (or halving down) until the verdict
// changes, then bisection. It fills c's Holds, Knee, Above, Below,
// BrokeFirst, Why and Probes. An inconclusive or failed probe ends the
// search there: the knee is then a bound, and c.Why says why.
func knee(ctx context.Context, c *result.SizeCandidate, probe prober, quick bool, nodes int) {
	top, res := float64(maxMult), resolution
	if quick {
		top, res = maxMultQuick, resolutionQuick
	}
	var lo, hi float64 // a multiplier that held, the smallest that broke (0: none)
	first := -1        // the probe that broke at the smallest multiplier
	run := func(m float64) (held, stop bool) {
		p := probe(ctx, m, 0)
		c.Probes = append(c.Probes, p)
		if !p.Holds && p.Error == "" && p.Inconclusive == "" && p.NotRun == "" && ctx.Err() == nil && diskOnly(p.Broke) {
			// Only the disk's SLOs broke: on a shared disk that can be a
			// moment of the disk's, which more cores would not change, so
			// the probe runs once more and the second verdict counts.
			p = probe(ctx, m, 0)
			c.Probes = append(c.Probes, p)
		}
		switch {
		case ctx.Err() != nil:
			return false, true
		case p.Error != "" || p.Inconclusive != "":
			c.Why = fmt.Sprintf("the search stopped at ×%.2f: %s", m, p.Error+p.Inconclusive)
			return false, true
		case !p.Holds && (first < 0 || m < c.Probes[first].Multiplier):
			first = len(c.Probes) - 1
		}
		return p.Holds, false
	}
	held, stop := run(1)
	c.Holds = held
	switch {
	case stop:
	case held:
		lo = 1
		for m := 2.0; m <= top; m *= 2 {
			h, s := run(m)
			if s {
				stop = true
				break
			}
			if !h {
				hi = m
				break
			}
			lo = m
		}
	default:
		hi = 1
		for m := 0.5; m >= minMult; m /= 2 {
			h, s := run(m)
			if s {
				stop = true
				break
			}
			if h {
				lo = m
				break
			}
			hi = m
		}
	}
	for !stop && lo > 0 && hi > 0 && hi/lo > res {
		mid := math.Sqrt(lo * hi)
		h, s := run(mid)
		if s {
			break
		}
		if h {
			lo = mid
		} else {
			hi = mid
		}
	}
	c.Knee = round3(lo)
	c.KneeNodes = int(math.Round(lo * float64(nodes)))
	c.Above = hi == 0 && lo > 0
	c.Below = lo == 0
	if first >= 0 {
		f := c.Probes[first]
		if len(f.Broke) > 0 {
			c.BrokeFirst = f.Broke[0]
		}
		if c.Why == "" {
			c.Why = f.Bottleneck
		}
	}
}
