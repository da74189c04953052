package logscan

import (
	"cmp"
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// count is one known message's occurrences in one member's log.
type count struct {
	key, cause, text string
	n                int
	perMinute        map[int64]int
	took             []float64
}

// stream is what one source holds, before its member is known.
type stream struct {
	counts map[string]*count
	// name and localID are the first ones the source's lines state.
	name, localID string
}

func newStream() *stream { return &stream{counts: map[string]*count{}} }

// add counts one line's known message.
func (s *stream) add(e *entry, k *known, v *variant) {
	c := s.counts[k.key]
	if c == nil {
		c = &count{key: k.key, cause: k.cause, text: v.text, perMinute: map[int64]int{}}
		s.counts[k.key] = c
	}
	c.n++
	if !e.ts.IsZero() {
		u := e.ts.Unix()
		c.perMinute[u-((u%60)+60)%60]++
	}
	d, ok := e.field(v.field)
	if !ok {
		d, ok = v.tookIn(e.msg)
	}
	if ok {
		c.took = append(c.took, d.Seconds())
	}
}

// tally is a census being built from one or more sources.
type tally struct {
	census  result.LogCensus
	formats map[string]bool
	counts  map[[2]string]*count // by member and key
	first   time.Time
	last    time.Time
}

func newTally() *tally {
	return &tally{
		census:  result.LogCensus{Sources: []string{}, Messages: []result.LogMessage{}},
		formats: map[string]bool{},
		counts:  map[[2]string]*count{},
	}
}

// seen records a kept line's formats and timestamp.
func (t *tally) seen(e *entry) {
	for _, f := range [...]string{e.outer, e.inner} {
		if f != "" {
			t.formats[f] = true
		}
	}
	if e.ts.IsZero() {
		return
	}
	if t.first.IsZero() || e.ts.Before(t.first) {
		t.first = e.ts
	}
	if e.ts.After(t.last) {
		t.last = e.ts
	}
}

// merge adds a finished source's counts under member.
func (t *tally) merge(member string, s *stream) {
	for key, c := range s.counts {
		have := t.counts[[2]string{member, key}]
		if have == nil {
			t.counts[[2]string{member, key}] = c
			continue
		}
		have.n += c.n
		have.took = append(have.took, c.took...)
		for m, n := range c.perMinute {
			have.perMinute[m] += n
		}
	}
}

// result returns the census: messages by member, then the most frequent
// first.
func (t *tally) result() result.LogCensus {
	out := t.census
	for f := range t.formats {
		out.Formats = append(out.Formats, f)
	}
	slices.Sort(out.Formats)
	if !t.first.IsZero() {
		out.FirstUnix = unixSeconds(t.first)
		out.LastUnix = unixSeconds(t.last)
	}
	out.Messages = []result.LogMessage{}
	for mk, c := range t.counts {
		m := result.LogMessage{Member: mk[0], Key: c.key, Text: c.text, Cause: c.cause, Count: c.n, Took: summarise(c.took)}
		for u, n := range c.perMinute {
			m.PerMinute = append(m.PerMinute, result.MinuteCount{Unix: u, Count: n})
		}
		slices.SortFunc(m.PerMinute, func(a, b result.MinuteCount) int { return cmp.Compare(a.Unix, b.Unix) })
		out.Messages = append(out.Messages, m)
	}
	slices.SortFunc(out.Messages, func(a, b result.LogMessage) int {
		return cmp.Or(cmp.Compare(a.Member, b.Member), cmp.Compare(b.Count, a.Count), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// unixSeconds is t in Unix seconds. UnixNano, whose quotient the census
// has always held, is undefined outside the years 1678 to 2262, which a
// line may well claim; there the seconds and nanoseconds are added.
func unixSeconds(t time.Time) float64 {
	if y := t.Year(); y > 1678 && y < 2262 {
		return float64(t.UnixNano()) / 1e9
	}
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// summarise returns min, median and max of seconds; nil for none.
func summarise(s []float64) *result.TookSummary {
	if len(s) == 0 {
		return nil
	}
	s = slices.Clone(s)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return &result.TookSummary{Min: s[0], Median: med, Max: s[len(s)-1]}
}
