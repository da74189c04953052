// Package wan emulates wide-area links between processes on one machine: a
// TCP proxy whose two directions are delay lines, each with its own one-way
// delay, jitter, bandwidth, loss and partition, looked up per chunk so a
// change reaches long-lived connections at once. It is what puts a WAN
// between the members of an `etcdlab cluster up --rtt/--topology` cluster.
//
// The model, after toxiproxy's latency toxic (docs/topologies.md describes
// it): every chunk read from a connection is
// stamped, given a due time, and written out no earlier than that; a chunk
// never overtakes an earlier one (TCP delivers in order), so jitter skews
// the delay upward under dense traffic, as on a real path.
package wan

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/dustin/go-humanize"
)

// DefaultRTO is the retransmission delay a lost chunk costs: Linux's minimum
// TCP retransmission timeout (TCP_RTO_MIN, 200 ms).
const DefaultRTO = 200 * time.Millisecond

// Link is what one direction of a path does to the bytes on it. The zero
// Link passes bytes straight through.
type Link struct {
	// Delay is the one-way propagation delay.
	Delay time.Duration `json:"delay,omitempty"`
	// Jitter adds a uniform random delay in [-Jitter, +Jitter] per chunk
	// (never below zero in total), without reordering.
	Jitter time.Duration `json:"jitter,omitempty"`
	// Rate is the bottleneck bandwidth in bytes per second; 0 is unlimited.
	Rate int64 `json:"rate,omitempty"`
	// Loss is the probability (0..1) that a chunk is lost once; TCP hides
	// loss, so it costs DefaultRTO for that chunk and everything behind it.
	Loss float64 `json:"loss,omitempty"`
	// Partitioned stalls the link: nothing is delivered until it heals.
	Partitioned bool `json:"partitioned,omitempty"`
}

// Validate returns a one-line error for a link no path can have.
func (l Link) Validate() error {
	switch {
	case l.Delay < 0:
		return fmt.Errorf("delay %v is negative", l.Delay)
	case l.Jitter < 0:
		return fmt.Errorf("jitter %v is negative", l.Jitter)
	case l.Rate < 0:
		return fmt.Errorf("rate %d B/s is negative", l.Rate)
	case l.Loss < 0 || l.Loss >= 1:
		return fmt.Errorf("loss %g is not a probability below 1", l.Loss)
	case l.Delay > time.Minute || l.Jitter > time.Minute:
		return fmt.Errorf("delay %v ± %v is over a minute", l.Delay, l.Jitter)
	}
	return nil
}

// passthrough reports whether the link changes nothing, so a chunk may be
// written at once when nothing is queued ahead of it.
func (l *Link) passthrough() bool {
	return l.Delay == 0 && l.Jitter == 0 && l.Rate == 0 && l.Loss == 0 && !l.Partitioned
}

// String is a short human form, e.g. "20ms ±2ms 10MB/s loss 1%".
func (l Link) String() string {
	if l.Partitioned {
		return "partitioned"
	}
	s := l.Delay.String()
	if l.Jitter > 0 {
		s += " ±" + l.Jitter.String()
	}
	if l.Rate > 0 {
		s += " " + humanize.Bytes(uint64(l.Rate)) + "/s"
	}
	if l.Loss > 0 {
		s += fmt.Sprintf(" loss %g%%", l.Loss*100)
	}
	return s
}

// line computes due times for one direction of one connection. It is used
// by that direction's reader goroutine only.
type line struct {
	rng        *rand.Rand
	lastDepart time.Time // when the previous chunk left the bottleneck
	lastDue    time.Time // when the previous chunk is delivered
}

// due returns when a chunk of n bytes read at now is delivered.
func (ln *line) due(l *Link, now time.Time, n int) time.Time {
	depart := now
	if l.Rate > 0 {
		if ln.lastDepart.After(depart) {
			depart = ln.lastDepart
		}
		depart = depart.Add(time.Duration(float64(n) / float64(l.Rate) * float64(time.Second)))
		ln.lastDepart = depart
	}
	d := l.Delay
	if l.Jitter > 0 {
		d += time.Duration(ln.rng.Int64N(int64(2*l.Jitter)+1)) - l.Jitter
		if d < 0 {
			d = 0
		}
	}
	if l.Loss > 0 && ln.rng.Float64() < l.Loss {
		d += DefaultRTO
	}
	due := depart.Add(d)
	if due.Before(ln.lastDue) {
		due = ln.lastDue // in order, as TCP delivers
	}
	ln.lastDue = due
	return due
}
