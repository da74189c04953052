// Package promhist reads etcd members' history from a Prometheus server
// with PromQL, so that a diagnosis covers an incident of hours and not only
// the seconds it watched itself: the worst WAL fsync, backend commit and
// peer round-trip p99 of each member over a range, its busiest CPU, its
// largest database, and how often it saw leaders change, applies run slow,
// heartbeats fail and proposals fail. It is step 8 of `etcdlab doctor`.
//
// It only reads: every request is a query of Prometheus' HTTP API, made
// with Prometheus' own Go client, each bounded by a deadline.
package promhist

import (
	"crypto/tls"
	"math"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/prometheus/common/model"
)

// Options say which Prometheus to ask and about which range. The zero
// value, plus URL, reads the last 6 hours.
type Options struct {
	// URL is the Prometheus server ("http://prometheus:9090", with a path
	// prefix if it is served under one). Credentials in it (user:password@)
	// are sent as basic authentication and never shown.
	URL string
	// Since is how far back from Until the range starts; default 6 h.
	Since time.Duration
	// Until ends the range; zero means now.
	Until time.Time
	// RateWindow is the range of rate() in the range queries; default
	// 5 m. It must hold at least two scrapes (PromQL needs two samples).
	RateWindow time.Duration
	// Step is the resolution of the range queries. Default: the range
	// over 250, rounded up to a whole second, at least 1 s and at most
	// RateWindow (so that consecutive rate windows touch and no burst
	// falls between two steps), unless that gives more points than
	// Prometheus allows (11,000 per series): then the range over 11,000.
	Step time.Duration
	// Selector is extra PromQL label matchers for etcd's series
	// (`job="etcd"`, `cluster=~"prod.*"`), with or without braces;
	// default none.
	Selector string
	// Timeout bounds each query (the request and Prometheus' evaluation);
	// default 10 s. At most 12 queries are sent, one after the other.
	Timeout time.Duration
	// TLS is the client configuration for an https URL (nil: the system's
	// roots).
	TLS *tls.Config
	// BearerToken, if set, is sent as "Authorization: Bearer"; it is
	// never printed.
	BearerToken string
}

// Defaults of Options.
const (
	DefaultSince      = 6 * time.Hour
	DefaultRateWindow = 5 * time.Minute
	DefaultTimeout    = 10 * time.Second
)

const (
	// maxPoints is Prometheus' limit of points per series of a range query.
	maxPoints = 11000
	// points is how many steps a default Step makes of the range.
	points = 250
)

// settings are Options validated, with defaults applied.
type settings struct {
	address    string // with credentials, for the client
	shown      string // without
	start, end time.Time
	since      string // the range as a PromQL duration
	window     string // RateWindow as a PromQL duration
	step       time.Duration
	sel        string // matchers without braces
	timeout    time.Duration
}

// matcher is one PromQL label matcher: name, operator, quoted value.
const matcher = `\s*[a-zA-Z_][a-zA-Z0-9_]*\s*(=|!=|=~|!~)\s*("(\\.|[^"\\])*"|'(\\.|[^'\\])*'|` + "`[^`]*`" + `)\s*`

// selectorRE matches a list of label matchers, a trailing comma allowed.
var selectorRE = regexp.MustCompile(`^(` + matcher + `(,` + matcher + `)*,?\s*)?$`)

// settings validates o and applies its defaults; errors are invalid-input
// errors naming Options' fields.
func (o Options) settings(now time.Time) (settings, error) {
	var s settings
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, invalid.Errorf("{URL}: %q is not an http(s) URL", redact(o.URL, u, err))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return s, invalid.Errorf("{URL}: %q has a query or fragment; give the server's base URL", u.Redacted())
	}
	s.address = u.String()
	shown := *u
	shown.User = nil
	s.shown = shown.String()

	if o.Since == 0 {
		o.Since = DefaultSince
	}
	if o.RateWindow == 0 {
		o.RateWindow = DefaultRateWindow
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	for _, d := range []struct {
		field string
		v     time.Duration
	}{{"Since", o.Since}, {"RateWindow", o.RateWindow}} {
		if d.v < time.Second || d.v%time.Millisecond != 0 {
			return s, invalid.Errorf("{"+d.field+"} must be whole milliseconds and at least 1s, not %s", d.v)
		}
	}
	if o.Timeout < 0 {
		return s, invalid.Errorf("{Timeout} must be positive, not %s", o.Timeout)
	}
	s.end = o.Until
	if s.end.IsZero() {
		s.end = now
	}
	s.start = s.end.Add(-o.Since)
	s.since = model.Duration(o.Since).String()
	s.window = model.Duration(o.RateWindow).String()
	s.timeout = o.Timeout

	switch {
	case o.Step < 0:
		return s, invalid.Errorf("{Step} must be positive, not %s", o.Step)
	case o.Step > 0:
		if n := o.Since/o.Step + 1; n > maxPoints {
			return s, invalid.Errorf("{Step} %s makes %d points of {Since} %s; Prometheus allows at most %d", o.Step, n, o.Since, maxPoints)
		}
		s.step = o.Step
	default:
		s.step = defaultStep(o.Since, o.RateWindow)
	}

	sel := strings.TrimSpace(o.Selector)
	if b, ok := strings.CutPrefix(sel, "{"); ok {
		if sel, ok = strings.CutSuffix(b, "}"); !ok {
			return s, invalid.Errorf("{Selector} %q opens a brace it does not close", o.Selector)
		}
	}
	if !selectorRE.MatchString(sel) {
		return s, invalid.Errorf("{Selector} %q is not a list of PromQL label matchers such as job=\"etcd\"", o.Selector)
	}
	s.sel = strings.TrimSpace(sel)
	return s, nil
}

// defaultStep is Options.Step's default for a range and a rate window.
func defaultStep(since, window time.Duration) time.Duration {
	secs := func(d time.Duration, n int64) time.Duration {
		return time.Duration(math.Ceil(d.Seconds()/float64(n))) * time.Second
	}
	step := min(max(secs(since, points), time.Second), window)
	return max(step, secs(since, maxPoints-1))
}

// redact returns raw for an error message, without a password when it
// parses.
func redact(raw string, u *url.URL, err error) string {
	if err != nil || u == nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "…" + raw[i:]
		}
		return raw
	}
	return u.Redacted()
}

// Validate reports the first option History would refuse, as a one-line
// invalid-input error, without sending anything: for callers that check
// every option before they start.
func (o Options) Validate() error {
	_, err := o.settings(time.Now())
	return err
}
