package load

import (
	"math"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Curve is a time-varying open-loop rate: consecutive segments, each a
// constant rate for its length. A segment of rate 0 issues nothing for its
// length. A Curve is a plain value; it is not changed by the scheduler.
type Curve []Segment

// Segment is one stretch of a Curve: Rate requests per second for Length.
type Segment struct {
	Length time.Duration
	Rate   float64
}

// Validate checks the segments. Its errors are invalid.Errorf errors naming
// the Spec field (Curve).
func (c Curve) Validate() error {
	for i, s := range c {
		if s.Length < 0 {
			return invalid.Errorf("{Curve} segment %d: length must not be negative, not %s", i, s.Length)
		}
		if s.Rate < 0 || math.IsNaN(s.Rate) || math.IsInf(s.Rate, 0) {
			return invalid.Errorf("{Curve} segment %d: rate must be a finite number not below 0, not %g", i, s.Rate)
		}
	}
	return nil
}

// Duration is the curve's whole length.
func (c Curve) Duration() time.Duration {
	var d time.Duration
	for _, s := range c {
		d += s.Length
	}
	return d
}

// Requests is how many requests the curve issues (its integral, which need
// not be a whole number).
func (c Curve) Requests() float64 {
	var n float64
	for _, s := range c {
		n += s.Rate * s.Length.Seconds()
	}
	return n
}

// Mean is the curve's mean rate over its length (0 for an empty curve).
func (c Curve) Mean() float64 {
	if d := c.Duration(); d > 0 {
		return c.Requests() / d.Seconds()
	}
	return 0
}

// Offset returns when request k (from 0) is due, from the curve's start:
// the time at which the curve's integral reaches k. It is false for a k
// the curve does not reach before its end. It walks the segments: the
// scheduler uses a curveCursor instead.
func (c Curve) Offset(k int64) (time.Duration, bool) {
	var cur curveCursor
	return cur.offset(c, k)
}

// curveCursor finds the offsets of increasing request numbers in time
// linear in the segments for a whole run. It belongs to one goroutine.
type curveCursor struct {
	seg   int           // the segment the last request fell in
	start time.Duration // its start
	count float64       // requests issued before it
}

// offset is Curve.Offset for a k not below the previous call's.
func (cur *curveCursor) offset(c Curve, k int64) (time.Duration, bool) {
	if k < 0 {
		return 0, false
	}
	want := float64(k)
	for ; cur.seg < len(c); cur.seg++ {
		s := c[cur.seg]
		n := s.Rate * s.Length.Seconds()
		if s.Rate > 0 && want < cur.count+n {
			off := cur.start + time.Duration((want-cur.count)/s.Rate*float64(time.Second))
			return min(off, cur.start+s.Length), true
		}
		cur.start += s.Length
		cur.count += n
	}
	return 0, false
}
