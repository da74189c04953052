package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load"
)

// Options say how a profile is played. It is a plain value.
type Options struct {
	// Prefix is where every key the replay writes, reads or watches
	// goes: Prefix + the row's prefix (its leading "/" dropped, so that
	// "/registry/pods/" under "/etcdlab/bench/1/" is
	// "/etcdlab/bench/1/registry/pods/"). It ends in "/".
	Prefix string
	// Speed compresses the profile's Series in time (5: ten minutes in
	// two); 0 means 1. It does not change rates.
	Speed float64
	// Scale multiplies every rate (3: three times the load); 0 means 1.
	Scale float64
	// Duration is how long to play a profile without a series (0: 60 s);
	// with a series, 0 plays the whole series (its length / Speed) and
	// anything else cuts it there.
	Duration time.Duration
	// Lab says the target is a cluster etcdlab started for the replay:
	// only then does Preload compact the store as the source was. On
	// anyone else's cluster that would remove more than the replay's own
	// history (etcd's compaction is the whole store's), so Preload writes
	// the keyspace only.
	Lab bool
}

// defaultDuration is how long a profile without a series is played.
const defaultDuration = 60 * time.Second

// Plan is a profile made ready to play under Options: the keyspace groups
// (one per prefix), the request mix, the curve, the watchers' placement
// and the leases. It is immutable once made, except for the counters that
// pair deletes with re-creations and grants with revocations (atomics);
// it is safe for concurrent use.
type Plan struct {
	p      *Profile
	o      Options
	groups []*group
	mix    mix
	curve  load.Curve
	dur    time.Duration
	leases leaseRange
	bg     backgroundPlan
	notes  []string
}

// NewPlan checks o against p and makes the plan. Its errors are
// invalid.Errorf errors of one line naming Options fields.
func NewPlan(p *Profile, o Options) (*Plan, error) {
	if p == nil {
		return nil, invalid.Errorf("no profile to replay")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	switch {
	case o.Prefix == "" || !strings.HasSuffix(o.Prefix, "/"):
		return nil, invalid.Errorf("{Prefix} must end in \"/\", not %q", o.Prefix)
	case o.Speed < 0 || math.IsNaN(o.Speed) || math.IsInf(o.Speed, 0):
		return nil, invalid.Errorf("{Speed} must be positive (0 means 1), not %g", o.Speed)
	case o.Scale < 0 || math.IsNaN(o.Scale) || math.IsInf(o.Scale, 0):
		return nil, invalid.Errorf("{Scale} must be positive (0 means 1), not %g", o.Scale)
	case o.Duration < 0:
		return nil, invalid.Errorf("{Duration} must not be negative, not %s", o.Duration)
	}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	pl := &Plan{p: p, o: o, leases: newLeaseRange()}
	pl.buildGroups()
	if err := pl.buildMix(); err != nil {
		return nil, err
	}
	if err := pl.buildCurve(); err != nil {
		return nil, err
	}
	pl.buildBackground()
	return pl, nil
}

// Workload is the unary request mix (put, range, delete, txn, lease-grant,
// lease-revoke): Ops() names the profile's operations present, in Ops()
// order; keep-alives and watches are the Background's. Its request k is
// the row that a low-discrepancy sequence over k picks, weighted by rate.
func (pl *Plan) Workload() load.Workload { return &pl.mix }

// Curve is the mix's total rate over time (requests per second), already
// multiplied by Scale and compressed by Speed.
func (pl *Plan) Curve() load.Curve { return slices.Clone(pl.curve) }

// Duration is how long the replay runs (the curve's length).
func (pl *Plan) Duration() time.Duration { return pl.dur }

// Rate is the mean total unary rate over the replay, requests per second.
func (pl *Plan) Rate() float64 { return pl.curve.Mean() }

// Notes says, one line each, where the plan departs from the profile
// (a prefix without a census shape, rates raised so that revokes have
// leases to revoke, watchers capped...).
func (pl *Plan) Notes() []string { return slices.Clone(pl.notes) }

func (pl *Plan) notef(format string, args ...any) {
	pl.notes = append(pl.notes, fmt.Sprintf(format, args...))
}

// buildCurve makes the curve: without a series, the mix's rate for
// Duration; with one, a segment per step between points (Step / Speed
// long), each at the rate of the point that ends it, whose rate
// is the point's unary rate: the sum of its per-operation rates for the
// mix's operations when it has them, else its total times the mix's share
// of the profile's rated operations.
func (pl *Plan) buildCurve() error {
	scale := pl.o.Scale
	s := pl.p.Series
	if s == nil || len(s.Points) == 0 {
		pl.dur = pl.o.Duration
		if pl.dur == 0 {
			pl.dur = defaultDuration
		}
		pl.curve = load.Curve{{Length: pl.dur, Rate: pl.mix.total * scale}}
		return nil
	}
	var rows float64
	for _, o := range pl.p.Operations {
		rows += o.Rate
	}
	share := 0.0
	if rows > 0 {
		share = pl.mix.profiled / rows
	}
	step := time.Duration(float64(s.Step.D()) / pl.o.Speed)
	if step <= 0 {
		return invalid.Errorf("{Speed} %g makes the series' %s step nothing", pl.o.Speed, s.Step.D())
	}
	any := false
	// A point's rate is over the step before its time (PromQL's rate()
	// looks back), so the first point is the load before the span and the
	// curve is the steps between points: point k plays from point k-1's
	// time to its own. A series of one point is that point for a step.
	pts := s.Points
	if len(pts) > 1 {
		pts = pts[1:]
	}
	for _, pt := range pts {
		r := pt.Rate * share
		if len(pt.Ops) > 0 {
			r = 0
			for _, op := range pl.mix.ops {
				r += pt.Ops[op]
			}
		}
		any = any || r > 0
		pl.curve = append(pl.curve, load.Segment{Length: step, Rate: r * scale})
	}
	if !any && pl.mix.total > 0 {
		return invalid.Errorf("profile: every point of the series has no request of the mix: nothing to replay")
	}
	pl.dur = pl.curve.Duration()
	if pl.o.Duration > 0 && pl.o.Duration < pl.dur {
		pl.curve = cut(pl.curve, pl.o.Duration)
		pl.dur = pl.o.Duration
	}
	return nil
}

// cut returns the first d of c.
func cut(c load.Curve, d time.Duration) load.Curve {
	var out load.Curve
	for _, s := range c {
		if d <= 0 {
			break
		}
		s.Length = min(s.Length, d)
		d -= s.Length
		out = append(out, s)
	}
	return out
}

// leaseRange is the lease IDs a plan grants: it asks etcd for IDs of its
// own (LeaseGrantRequest.ID), so that a revoke can name a lease without
// reading the grant's reply (the wire transport decodes none), and so that
// Stop revokes exactly the leases the replay granted, by ID. The
// workload's leases are base + n, the Background's base +
// backgroundOffset + i; every ID of the replay is in [base, base + 2^41).
type leaseRange struct{ base int64 }

// backgroundOffset is where the Background's lease IDs start above base.
const backgroundOffset = int64(1) << 40

func newLeaseRange() leaseRange {
	// Above 2^62 and random in 21 bits, so two replays' ranges do not
	// meet; etcd's own IDs (a member's ID bits, a clock, a counter) can
	// fall in one, which is why Stop revokes only the IDs it granted.
	return leaseRange{base: 1<<62 | rand.Int64N(1<<21)<<41}
}

// groupPrefix is where a profile prefix's keys go in the replay.
func (pl *Plan) groupPrefix(src string) string { return pl.o.Prefix + strings.TrimPrefix(src, "/") }

// WriteKeyBytes is the mean length of the keys the replay's puts write
// (puts and txn puts, weighted by their rates): what the target's
// etcd_debugging_mvcc_total_put_size_in_bytes counts beside the values,
// for a fidelity that compares values with the profile's (which took the
// census's mean key size off). 0 without puts.
func (pl *Plan) WriteKeyBytes() float64 {
	var sum, w float64
	for _, e := range pl.mix.entries {
		n := 0.0
		switch e.kind {
		case kindPut:
			n = e.rate
		case kindTxn:
			n = e.rate * float64(e.txn.puts)
		}
		if n > 0 && e.g != nil {
			sum += n * float64(e.g.keyBytes)
			w += n
		}
	}
	if w == 0 {
		return 0
	}
	return sum / w
}
