package logscan

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
)

// parseTime reads an ISO 8601 timestamp as etcd's zap logger writes it
// ("2024-05-02T10:11:12.345678Z", "...+0200"), as kubectl logs
// --timestamps does (RFC 3339 with nanoseconds) and as journalctl -o
// short-iso does ("2024-05-02T10:11:12+0000").
func parseTime(s string) (time.Time, bool) {
	if len(s) < 20 || s[4] != '-' || s[10] != 'T' {
		return time.Time{}, false
	}
	// Parsing accepts a fractional second after the seconds even where
	// the layout has none.
	for _, layout := range [...]string{time.RFC3339, "2006-01-02T15:04:05Z0700"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// parseUnix reads a Unix time in seconds with a fraction (zap's epoch
// encoder, journalctl -o short-unix); values too large for seconds are
// taken as milliseconds, microseconds or nanoseconds. Decimals are read
// exactly; other numbers (1.7e9) through a float.
func parseUnix(s string) (time.Time, bool) {
	whole, frac, _ := strings.Cut(s, ".")
	if len(whole) > 19 || !isDigits(whole) || (frac != "" && !isDigits(frac)) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f >= 1 && f < 9e18) {
			return time.Time{}, false
		}
		whole, frac = strconv.FormatFloat(math.Trunc(f), 'f', 0, 64), strconv.FormatFloat(f-math.Trunc(f), 'f', 9, 64)[2:]
	}
	n, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, false
	}
	frac = (frac + "000000000")[:9]
	nanos, _ := strconv.ParseInt(frac, 10, 64)
	unit := int64(time.Second)
	switch {
	case n >= 1e17:
		unit = 1
	case n >= 1e14:
		unit = int64(time.Microsecond)
	case n >= 1e11:
		unit = int64(time.Millisecond)
	}
	if n > math.MaxInt64/unit {
		return time.Time{}, false
	}
	return time.Unix(0, n*unit+nanos*unit/int64(time.Second)), true
}

// unixDigits reports whether s looks like a Unix time with a fraction
// ("1714644672.123456").
func unixDigits(s string) bool {
	dot := strings.IndexByte(s, '.')
	if dot < 9 || dot == len(s)-1 {
		return false
	}
	for i := range len(s) {
		if i != dot && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// jsonTime reads zap's "ts": a string timestamp or a number of seconds;
// zero when it is neither.
func jsonTime(raw json.RawMessage) time.Time {
	var t time.Time
	if s, ok := str(raw); ok {
		t, _ = parseTime(s)
	} else if len(raw) > 0 {
		t, _ = parseUnix(string(raw))
	}
	return t
}

// parseDuration reads a Go duration ("1.234s", "106.821µs"); negative
// durations are refused.
func parseDuration(s string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// jsonDuration reads a zap duration field: a Go duration string (etcd's
// encoder) or a number of seconds (zap's default encoder, which etcd 3.3's
// zap logging used).
func jsonDuration(raw json.RawMessage) (time.Duration, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return 0, false
		}
		return parseDuration(s)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || !(f >= 0 && f < math.MaxInt64/1e9) {
		return 0, false
	}
	return time.Duration(f * 1e9), true
}
