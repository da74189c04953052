package load

import (
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Spec says how much load to send and how. It is a plain value.
type Spec struct {
	// Clients is the number of concurrent simulated clients.
	Clients int
	// Total stops the run after this many requests; Duration after this
	// long. At least one must be set; the first reached ends the run.
	Total    int64
	Duration time.Duration
	// Rate, if positive, makes the run open loop: request k is due at
	// start + k/Rate whether or not earlier ones have returned, and latency
	// is measured from that intended time. Zero is a closed loop.
	Rate float64
	// Curve, if set, makes the run open loop at a rate that varies over
	// time: request k is due at start + Curve.Offset(k). It replaces Rate,
	// and the run ends at the curve's end (or at Total or Duration, if
	// sooner). The recorder's per-second series then follows the curve.
	Curve Curve
	// RequestTimeout bounds each request; a request that takes longer is
	// an error (DeadlineExceeded), never a hang.
	RequestTimeout time.Duration
	// Canary, if positive, measures the cluster's availability apart from
	// the load's clients: every Canary, the workload's probe request (see
	// Prober) goes to each member the connections reach, whether or not
	// earlier ones returned. The result's ClusterUnavailability comes from
	// it; its resolution is Canary.
	Canary time.Duration
	// FirstSeq is the sequence number of the first request (so that a
	// measured phase continues the keys of its warm-up).
	FirstSeq int64
	// Progress, if set, is called about every 200 ms with the number of
	// requests completed so far, from a goroutine of Run.
	Progress func(done int64)
	// Stop, if set, is watched; closing it ends the run early with the
	// reason StopReason returns.
	Stop       <-chan struct{}
	StopReason func() string
	// Live, if set, shows the run's requests as Prometheus metrics while
	// it runs, and keeps them in its totals after.
	Live *Live
	// Samples, if set, keeps every request (when due, when answered,
	// whether it failed) so that any window can be read after the run.
	Samples *Samples
}

// open reports whether the run is open loop (a Rate or a Curve).
func (s Spec) open() bool { return s.Rate > 0 || len(s.Curve) > 0 }

// targetRate is the open loop's intended rate: Rate, or the Curve's mean.
func (s Spec) targetRate() float64 {
	if len(s.Curve) > 0 {
		return s.Curve.Mean()
	}
	return s.Rate
}

// Validate checks a spec. Its errors are invalid.Errorf errors naming the
// Spec fields.
func (s Spec) Validate() error {
	switch {
	case s.Clients < 1:
		return invalid.Errorf("{Clients} must be at least 1, not %d", s.Clients)
	case s.Total < 0:
		return invalid.Errorf("{Total} must not be negative, not %d", s.Total)
	case s.Duration < 0:
		return invalid.Errorf("{Duration} must not be negative, not %s", s.Duration)
	case s.Total == 0 && s.Duration == 0 && len(s.Curve) == 0:
		return invalid.Errorf("give {Total} or {Duration}")
	case s.Rate < 0:
		return invalid.Errorf("{Rate} must not be negative, not %g", s.Rate)
	case s.Canary < 0:
		return invalid.Errorf("{Canary} must not be negative, not %s", s.Canary)
	case s.RequestTimeout <= 0:
		return invalid.Errorf("{RequestTimeout} must be positive, not %s", s.RequestTimeout)
	}
	return s.Curve.Validate()
}
