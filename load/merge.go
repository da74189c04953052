package load

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/result"
)

// MergeStats combines the statistics that several load generators (bench
// agents) recorded of one run into the statistics one recorder would have
// recorded had it seen every request: counts and errors add up, the
// latency percentiles come from one histogram holding every sample (the
// agents' HDR histograms merged, so they are exact to the histogram's
// precision), mean and standard deviation are pooled exactly, minimum and
// maximum are the extremes, and the per-second series add up by second.
// The merged run lasted elapsed (from the first agent's start to the last
// one's end), which sets the throughput.
//
// Client-observed unavailability is what all the clients together saw: the
// times at which every part was in an outage window (their intersection),
// so a window one agent alone saw is not the load's. Parts must have their
// histograms (results from etcdlab 0.x before histograms were written
// cannot be merged: an error says so). It is a pure function.
func MergeStats(parts []result.Stats, elapsed time.Duration) (result.Stats, error) {
	if len(parts) == 0 {
		return result.Stats{}, errors.New("nothing to merge")
	}
	lat, svc := newHist(), newHist()
	var n int64
	var sum, sumsq float64
	mn, mx := math.Inf(1), 0.0
	codes, msgs := map[string]int64{}, map[string]int64{}
	secs := map[int64]*result.Second{}
	open := false
	for i, p := range parts {
		if p.Requests > 0 && p.Histogram == "" {
			return result.Stats{}, fmt.Errorf("part %d has no latency histogram to merge", i)
		}
		if err := mergeEncoded(lat, p.Histogram); err != nil {
			return result.Stats{}, fmt.Errorf("part %d: latency histogram: %w", i, err)
		}
		if p.ServiceTime != nil {
			open = true
			if err := mergeEncoded(svc, p.ServiceHistogram); err != nil {
				return result.Stats{}, fmt.Errorf("part %d: service-time histogram: %w", i, err)
			}
		}
		n += p.Requests
		if p.Requests > 0 {
			k := float64(p.Requests)
			sum += k * p.Latency.Mean
			sumsq += k * (p.Latency.Stddev*p.Latency.Stddev + p.Latency.Mean*p.Latency.Mean)
			mn, mx = math.Min(mn, p.Latency.Min), math.Max(mx, p.Latency.Max)
		}
		for k, v := range p.Errors {
			codes[k] += v
		}
		for k, v := range p.ErrorMessages {
			msgs[k] += v
		}
		for _, s := range p.TimeSeries {
			t := secs[s.UnixSecond]
			if t == nil {
				t = &result.Second{UnixSecond: s.UnixSecond, Min: math.Inf(1)}
				secs[s.UnixSecond] = t
			}
			if s.Requests > 0 {
				t.Mean = (t.Mean*float64(t.Requests) + s.Mean*float64(s.Requests)) / float64(t.Requests+s.Requests)
				t.Min, t.Max = math.Min(t.Min, s.Min), math.Max(t.Max, s.Max)
			}
			t.Requests += s.Requests
			t.Errors += s.Errors
		}
	}
	st := result.Stats{Requests: n, Errors: codes, ErrorMessages: msgs, DurationSeconds: elapsed.Seconds()}
	if elapsed > 0 {
		st.ThroughputRPS = float64(n) / elapsed.Seconds()
	}
	if n > 0 {
		st.Latency = summarize(lat, n, sum, sumsq, mn, mx)
		if open {
			l := summarizeHist(svc)
			st.ServiceTime = &l
		}
	}
	if b, err := lat.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		st.Histogram = string(b)
	}
	if open {
		if b, err := svc.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
			st.ServiceHistogram = string(b)
		}
	}
	for _, s := range secs {
		if s.Requests == 0 {
			s.Min = 0
		}
		st.TimeSeries = append(st.TimeSeries, *s)
	}
	sort.Slice(st.TimeSeries, func(i, j int) bool { return st.TimeSeries[i].UnixSecond < st.TimeSeries[j].UnixSecond })
	if len(msgs) == 0 {
		st.ErrorMessages = nil
	}
	var us []*result.Unavailability
	for _, p := range parts {
		us = append(us, p.ClientUnavailability)
	}
	st.ClientUnavailability = IntersectUnavailability(us)
	return st, nil
}

// mergeEncoded adds the histogram encoded in s (result.Stats.Histogram's
// form; "" is empty) to h.
func mergeEncoded(h *hdrhistogram.Histogram, s string) error {
	if s == "" {
		return nil
	}
	d, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return err
	}
	if dropped := h.Merge(d); dropped != 0 {
		return fmt.Errorf("%d values outside the histogram's range", dropped)
	}
	return nil
}

// IntersectUnavailability returns the windows in which every one of us
// was unavailable: the outages of several observers that each could reach
// the cluster on their own (nil if any saw none). Windows beyond
// result.MaxWindows were not listed by their observers and so are missed.
func IntersectUnavailability(us []*result.Unavailability) *result.Unavailability {
	if len(us) == 0 {
		return nil
	}
	type span struct{ from, to time.Time }
	var cur []span
	for i, u := range us {
		if u == nil || len(u.Windows) == 0 {
			return nil
		}
		var next []span
		for _, w := range u.Windows {
			s := span{w.Start, w.Start.Add(time.Duration(w.Seconds * float64(time.Second)))}
			if i == 0 {
				next = append(next, s)
				continue
			}
			for _, c := range cur {
				from, to := c.from, c.to
				if s.from.After(from) {
					from = s.from
				}
				if s.to.Before(to) {
					to = s.to
				}
				if to.After(from) {
					next = append(next, span{from, to})
				}
			}
		}
		cur = next
	}
	if len(cur) == 0 {
		return nil
	}
	sort.Slice(cur, func(i, j int) bool { return cur[i].from.Before(cur[j].from) })
	out := &result.Unavailability{}
	for _, s := range cur {
		out.Add(s.from, s.to.Sub(s.from))
	}
	return out
}
