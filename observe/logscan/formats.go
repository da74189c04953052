package logscan

import (
	"strings"
	"time"
)

// The formats a census lists.
const (
	formatJSON          = "json"           // etcd's zap logger (3.4 with --logger=zap, 3.5, 3.6)
	formatConsole       = "console"        // zap's console encoder (3.6 --log-format=console)
	formatText          = "text"           // capnslog (3.4 without --logger=zap)
	formatJournalJSON   = "journald-json"  // journalctl -o json
	formatJournalShort  = "journald-short" // journalctl -o short, short-iso, short-precise, short-unix
	startingServer      = "starting an etcd server"
	capnslogNamePrefix  = "embed: name = "
	capnslogLevels      = "CEWNIDT"
	consoleTimeLayout   = "2006-01-02T15:04:05Z0700"
	capnslogTimeLayout  = "2006-01-02 15:04:05"
	journalShortLayout  = "Jan _2 15:04:05"
	journalShortMinimum = len("Jan _2 15:04:05 h i:")
)

// entry is one recognised line.
type entry struct {
	// outer is the wrapper's format (journald), inner the etcd line's;
	// either may be empty.
	outer, inner string
	// ts is when the line was logged; zero when it does not say.
	ts      time.Time
	msg     string
	errText string
	// response is zap's "response" field of a slow request ("range_
	// response_count:100000 size:12MB"); text formats write it in msg.
	response string
	// took and exceeded are zap's "took" and "exceeded-duration".
	took, exceeded       time.Duration
	hasTook, hasExceeded bool
	// name is the member's name when the line states it; localID its
	// local-member-id.
	name, localID string
}

// field returns the zap duration field named.
func (e *entry) field(name string) (time.Duration, bool) {
	switch name {
	case "took":
		return e.took, e.hasTook
	case "exceeded-duration":
		return e.exceeded, e.hasExceeded
	}
	return 0, false
}

// parseLine recognises one line, trimmed of surrounding white space:
// an etcd line (zap JSON, zap console, capnslog text), a journald line
// (JSON export, or short output with the etcd line after "host ident:"),
// or an etcd line after a timestamp and a space (kubectl logs
// --timestamps).
func parseLine(s string) (entry, bool) {
	if strings.HasPrefix(s, "{") {
		return parseJSON(s, true)
	}
	if e, ok := parseEtcd(s); ok {
		return e, true
	}
	tok, rest, ok := strings.Cut(s, " ")
	if !ok {
		return entry{}, false
	}
	ts, ok := parseTime(tok)
	if !ok && unixDigits(tok) {
		ts, ok = parseUnix(tok)
	}
	if ok {
		if e, ok := parseEtcd(rest); ok { // kubectl logs --timestamps
			if e.ts.IsZero() {
				e.ts = ts
			}
			return e, true
		}
		return parseJournalShort(rest, ts)
	}
	// journalctl -o short: "May 02 10:11:12 host etcd[123]: ...", no year,
	// so no timestamp of its own.
	if len(s) < journalShortMinimum {
		return entry{}, false
	}
	end := strings.IndexByte(s[len(journalShortLayout):], ' ')
	if end < 0 {
		return entry{}, false
	}
	end += len(journalShortLayout)
	if _, err := time.Parse(journalShortLayout, s[:end]); err != nil {
		return entry{}, false
	}
	return parseJournalShort(s[end+1:], time.Time{})
}

// parseEtcd recognises a line as etcd writes it: zap JSON, zap console or
// capnslog text.
func parseEtcd(s string) (entry, bool) {
	if strings.HasPrefix(s, "{") {
		return parseJSON(s, false)
	}
	if e, ok := parseText(s); ok {
		return e, true
	}
	return parseConsole(s)
}

// parseJournalShort reads "host ident[pid]: message" after journalctl's
// timestamp. A message in no etcd format is taken as it is (capnslog
// under systemd logs without its own timestamp).
func parseJournalShort(rest string, ts time.Time) (entry, bool) {
	host, rest, ok := strings.Cut(rest, " ")
	if !ok || host == "" {
		return entry{}, false
	}
	ident, msg, _ := strings.Cut(rest, " ")
	if len(ident) < 2 || !strings.HasSuffix(ident, ":") {
		return entry{}, false
	}
	e, ok := parseEtcd(msg)
	if !ok {
		e = entry{msg: msg}
	}
	e.outer = formatJournalShort
	if e.ts.IsZero() {
		e.ts = ts
	}
	return e, true
}

// parseText reads capnslog's line: "2021-03-04 05:06:07.123456 W |
// pkg: message". capnslog writes local time without a zone; it is read
// as UTC.
func parseText(s string) (entry, bool) {
	if len(s) < 24 || s[4] != '-' || s[7] != '-' || s[10] != ' ' {
		return entry{}, false
	}
	sp := strings.IndexByte(s[11:], ' ')
	if sp < 0 {
		return entry{}, false
	}
	ts, err := time.Parse(capnslogTimeLayout, s[:11+sp])
	if err != nil {
		return entry{}, false
	}
	rest := s[12+sp:]
	if len(rest) < 4 || rest[1:4] != " | " || !strings.Contains(capnslogLevels, rest[:1]) {
		return entry{}, false
	}
	e := entry{inner: formatText, ts: ts, msg: rest[4:]}
	if name, ok := strings.CutPrefix(e.msg, capnslogNamePrefix); ok {
		e.name = strings.TrimSpace(name)
	}
	return e, true
}

// parseConsole reads zap's console encoding: timestamp, level, caller and
// message separated by tabs, then the fields as JSON.
func parseConsole(s string) (entry, bool) {
	f := strings.Split(s, "\t")
	if len(f) < 3 {
		return entry{}, false
	}
	ts, ok := parseTime(f[0])
	if !ok || !isLevel(f[1]) {
		return entry{}, false
	}
	rest := f[2:]
	var fields string
	if last := rest[len(rest)-1]; len(rest) > 1 && strings.HasPrefix(last, "{") {
		fields, rest = last, rest[:len(rest)-1]
	}
	e := entry{inner: formatConsole, ts: ts, msg: rest[len(rest)-1]}
	if r, ok := decode(fields); ok {
		r.fill(&e)
	}
	return e, true
}

// isLevel reports whether s is one of zap's level names.
func isLevel(s string) bool {
	switch strings.ToLower(s) {
	case "debug", "info", "warn", "error", "dpanic", "panic", "fatal":
		return true
	}
	return false
}
