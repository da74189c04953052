package logscan

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// rawLine holds the fields of a JSON line that a census reads: zap's
// (etcd's logger) and journald's export (journalctl -o json). Every field
// is kept raw so that one of an unexpected type spoils only itself.
type rawLine struct {
	Msg      json.RawMessage `json:"msg"`
	TS       json.RawMessage `json:"ts"`
	Time     json.RawMessage `json:"time"`
	Took     json.RawMessage `json:"took"`
	Exceeded json.RawMessage `json:"exceeded-duration"`
	Error    json.RawMessage `json:"error"`
	Response json.RawMessage `json:"response"`
	Name     json.RawMessage `json:"name"`
	LocalID  json.RawMessage `json:"local-member-id"`
	Message  json.RawMessage `json:"MESSAGE"`
	Realtime json.RawMessage `json:"__REALTIME_TIMESTAMP"`
}

// decode reads s as a JSON object.
func decode(s string) (rawLine, bool) {
	var r rawLine
	if s == "" || json.Unmarshal([]byte(s), &r) != nil {
		return rawLine{}, false
	}
	return r, true
}

// str returns raw as a string when it is one.
func str(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; !bytes.ContainsAny(inner, "\\\"") && utf8.Valid(inner) {
		return string(inner), true // as Unmarshal would return it, without its work
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// fill copies zap's fields into e: durations, error, local member ID, and
// the member's name from the line that starts the server (other lines'
// "name" fields name other things).
func (r *rawLine) fill(e *entry) {
	e.took, e.hasTook = jsonDuration(r.Took)
	e.exceeded, e.hasExceeded = jsonDuration(r.Exceeded)
	e.errText, _ = str(r.Error)
	e.response, _ = str(r.Response)
	e.localID, _ = str(r.LocalID)
	if e.msg == startingServer {
		e.name, _ = str(r.Name)
	}
}

// parseJSON reads a zap JSON line or, when journal is set, a journald
// JSON export line whose MESSAGE is read as an etcd line (or taken as it
// is). A JSON object with neither "msg" nor journald's fields is not
// recognised.
func parseJSON(s string, journal bool) (entry, bool) {
	r, ok := decode(s)
	if !ok {
		return entry{}, false
	}
	if journal && len(r.Message) > 0 && len(r.Realtime) > 0 {
		return r.journal()
	}
	msg, ok := str(r.Msg)
	if !ok {
		return entry{}, false
	}
	e := entry{inner: formatJSON, msg: msg}
	e.ts = jsonTime(r.TS)
	if e.ts.IsZero() {
		e.ts = jsonTime(r.Time) // etcd embedded with a logger that names it "time"
	}
	r.fill(&e)
	return e, true
}

// journal reads a journald export line.
func (r *rawLine) journal() (entry, bool) {
	us, err := strconv.ParseInt(trimQuotes(r.Realtime), 10, 64)
	if err != nil || us <= 0 {
		return entry{}, false
	}
	msg, ok := str(r.Message)
	if !ok {
		// A message that is not UTF-8 is an array of bytes; one over
		// 4096 bytes is null without journalctl --all.
		var b []byte
		var ints []int
		if json.Unmarshal(r.Message, &ints) == nil {
			b = make([]byte, 0, len(ints))
			for _, v := range ints {
				b = append(b, byte(v))
			}
		}
		msg = string(b)
	}
	e, ok := parseEtcd(msg)
	if !ok {
		e = entry{msg: msg}
	}
	e.outer = formatJournalJSON
	if e.ts.IsZero() {
		e.ts = time.UnixMicro(us)
	}
	return e, true
}

// trimQuotes returns a JSON string's bytes without its quotes (journald
// writes numbers as strings).
func trimQuotes(raw json.RawMessage) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		return string(raw[1 : len(raw)-1])
	}
	return string(raw)
}
