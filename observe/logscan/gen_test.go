package logscan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// event is one line a generated log holds: a sample logged at a time in a
// format ("journald-plain" is journalctl -o short without a year, so no
// timestamp).
type event struct {
	at     time.Time
	s      sample
	format string
}

// genFormats are the ways a generated line is written; text and plain
// only carry samples whose message holds everything.
var genFormats = []string{"json", "text", "console", "journald-json", "journald-short", "kubectl", "journald-plain"}

// textual reports whether s can be written as capnslog text.
func (s sample) textual() bool { return s.field == "" && s.err == "" }

// zapLine writes ev as etcd's zap logger does.
func zapLine(ev event) string {
	m := map[string]any{"level": "warn", "ts": ev.at.Format("2006-01-02T15:04:05.000000Z0700"), "caller": "x/y.go:1", "msg": ev.s.render()}
	if ev.s.field != "" {
		m[ev.s.field] = ev.s.took.String()
	}
	if ev.s.err != "" {
		m["error"] = ev.s.err
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// textLine writes ev as capnslog does.
func textLine(ev event) string {
	return ev.at.Format("2006-01-02 15:04:05.000000") + " W | " + ev.s.render()
}

// line writes ev in its format.
func (ev event) line() string {
	switch ev.format {
	case "json":
		return zapLine(ev)
	case "text":
		return textLine(ev)
	case "console":
		fields := map[string]any{}
		if ev.s.field != "" {
			fields[ev.s.field] = ev.s.took.String()
		}
		if ev.s.err != "" {
			fields["error"] = ev.s.err
		}
		b, _ := json.Marshal(fields)
		return ev.at.Format("2006-01-02T15:04:05.000000Z0700") + "\twarn\tx/y.go:1\t" + ev.s.render() + "\t" + string(b)
	case "journald-json":
		b, _ := json.Marshal(map[string]any{"__REALTIME_TIMESTAMP": fmt.Sprint(ev.at.UnixMicro() + 17), "_HOSTNAME": "h", "MESSAGE": zapLine(ev)})
		return string(b)
	case "journald-short":
		inner := zapLine(ev)
		if ev.s.textual() {
			inner = textLine(ev)
		}
		return ev.at.Add(time.Second).Format("2006-01-02T15:04:05-0700") + " host etcd[42]: " + inner
	case "kubectl":
		return ev.at.Add(time.Millisecond).Format(time.RFC3339Nano) + " " + zapLine(ev)
	case "journald-plain":
		return ev.at.Format(time.Stamp) + " host etcd[42]: " + ev.s.render()
	}
	panic("unknown format " + ev.format)
}

// formatsOf are the census formats of a generated format.
func formatsOf(f string) []string {
	switch f {
	case "kubectl":
		return []string{formatJSON}
	case "journald-json":
		return []string{formatJournalJSON, formatJSON}
	case "journald-plain":
		return []string{formatJournalShort}
	}
	return []string{f}
}

// generate returns n events at random times within minutes of base, of
// random samples in random formats they can be written in.
func generate(rng *rand.Rand, base time.Time, minutes, n int) []event {
	all := samples()
	evs := make([]event, 0, n)
	for range n {
		s := all[rng.IntN(len(all))]
		f := genFormats[rng.IntN(len(genFormats))]
		if !s.textual() && (f == "text" || f == "journald-plain") {
			f = "json"
		}
		at := base.Add(time.Duration(rng.Int64N(int64(minutes) * int64(time.Minute))))
		evs = append(evs, event{at: at.Truncate(time.Microsecond), s: s, format: f})
	}
	return evs
}

// expect is the census of events in member's log, worked out from the
// events themselves, and lines added as unrecognised.
func expect(member string, evs []event, junk int) result.LogCensus {
	want := result.LogCensus{Lines: len(evs) + junk, Unrecognised: junk}
	formats := map[string]bool{}
	per := map[string]*result.LogMessage{}
	took := map[string][]float64{}
	var first, last time.Time
	for _, ev := range evs {
		for _, f := range formatsOf(ev.format) {
			formats[f] = true
		}
		timed := ev.format != "journald-plain"
		if timed && (first.IsZero() || ev.at.Before(first)) {
			first = ev.at
		}
		if timed && ev.at.After(last) {
			last = ev.at
		}
		if ev.s.key == "" {
			continue
		}
		m := per[ev.s.key]
		if m == nil {
			m = &result.LogMessage{Member: member, Key: ev.s.key}
			per[ev.s.key] = m
		}
		m.Count++
		if timed {
			minute := ev.at.Truncate(time.Minute).Unix()
			i := slices.IndexFunc(m.PerMinute, func(c result.MinuteCount) bool { return c.Unix == minute })
			if i < 0 {
				m.PerMinute = append(m.PerMinute, result.MinuteCount{Unix: minute})
				i = len(m.PerMinute) - 1
			}
			m.PerMinute[i].Count++
		}
		if ev.s.took > 0 {
			took[ev.s.key] = append(took[ev.s.key], ev.s.took.Seconds())
		}
	}
	for f := range formats {
		want.Formats = append(want.Formats, f)
	}
	slices.Sort(want.Formats)
	if !first.IsZero() {
		want.FirstUnix, want.LastUnix = float64(first.UnixNano())/1e9, float64(last.UnixNano())/1e9
	}
	for key, m := range per {
		slices.SortFunc(m.PerMinute, func(a, b result.MinuteCount) int { return int(a.Unix - b.Unix) })
		if d := took[key]; len(d) > 0 {
			slices.Sort(d)
			s := &result.TookSummary{Min: d[0], Max: d[len(d)-1], Median: d[len(d)/2]}
			if len(d)%2 == 0 {
				s.Median = (d[len(d)/2-1] + d[len(d)/2]) / 2
			}
			m.Took = s
		}
		want.Messages = append(want.Messages, *m)
	}
	return want
}

// logOf writes events as one log, with junk lines between them.
func logOf(evs []event, junk []string) string {
	var b strings.Builder
	for i, ev := range evs {
		b.WriteString(ev.line() + "\n")
		if i < len(junk) {
			b.WriteString(junk[i] + "\n")
		}
	}
	return b.String()
}
