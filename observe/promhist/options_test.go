package promhist

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestInvalidOptions: bad options are one-line invalid-input errors naming
// the field, and never show a password.
func TestInvalidOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		o     Options
		field string
	}{
		{"no URL", Options{}, "URL"},
		{"no scheme", Options{URL: "localhost:9090"}, "URL"},
		{"not http", Options{URL: "ftp://prometheus:9090"}, "URL"},
		{"no host", Options{URL: "http://"}, "URL"},
		{"unparsable", Options{URL: "http://u:secret@pro metheus:9090"}, "URL"},
		{"query", Options{URL: "http://u:secret@prometheus:9090/?x=1"}, "URL"},
		{"negative since", Options{URL: "http://p:9090", Since: -time.Hour}, "Since"},
		{"short window", Options{URL: "http://p:9090", RateWindow: 500 * time.Millisecond}, "RateWindow"},
		{"odd window", Options{URL: "http://p:9090", RateWindow: 5*time.Second + time.Microsecond}, "RateWindow"},
		{"negative step", Options{URL: "http://p:9090", Step: -time.Second}, "Step"},
		{"too many points", Options{URL: "http://p:9090", Since: time.Hour, Step: 300 * time.Millisecond}, "Step"},
		{"negative timeout", Options{URL: "http://p:9090", Timeout: -time.Second}, "Timeout"},
		{"unquoted selector", Options{URL: "http://p:9090", Selector: "job=etcd"}, "Selector"},
		{"open brace", Options{URL: "http://p:9090", Selector: `{job="etcd"`}, "Selector"},
		{"injected", Options{URL: "http://p:9090", Selector: `job="etcd"}[5m]) or vector(1`}, "Selector"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := History(context.Background(), tc.o)
			inv := invalid.As(err)
			if inv == nil || len(inv.Params()) == 0 || inv.Params()[0] != tc.field {
				t.Fatalf("err %v, want an invalid-input error about %s", err, tc.field)
			}
			if msg := err.Error(); strings.Contains(msg, "secret") || strings.Contains(msg, "\n") {
				t.Fatalf("message %q", msg)
			}
		})
	}
}

// TestSettings: defaults, the step chosen for a range, the selector
// without braces and the URL shown without credentials.
func TestSettings(t *testing.T) {
	t.Parallel()
	end := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name                 string
		o                    Options
		since, window, shown string
		step                 time.Duration
		sel                  string
	}{
		{"defaults", Options{URL: "http://p:9090"}, "6h", "5m", "http://p:9090", 87 * time.Second, ""},
		{"short range", Options{URL: "http://p:9090", Since: time.Minute, RateWindow: 10 * time.Second}, "1m", "10s", "http://p:9090", time.Second, ""},
		{"step at most the window", Options{URL: "http://p:9090", Since: 24 * time.Hour, RateWindow: time.Minute}, "1d", "1m", "http://p:9090", time.Minute, ""},
		{"Prometheus' limit", Options{URL: "http://p:9090", Since: 60 * 24 * time.Hour}, "60d", "5m", "http://p:9090", 472 * time.Second, ""},
		{"explicit step", Options{URL: "http://p:9090", Step: 90 * time.Second}, "6h", "5m", "http://p:9090", 90 * time.Second, ""},
		{"credentials and prefix", Options{URL: "https://u:pw@p:9090/prom/", Selector: ` { job="etcd", cluster=~'a.*' } `}, "6h", "5m", "https://p:9090/prom/", 87 * time.Second, `job="etcd", cluster=~'a.*'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.o.Until = end
			s, err := tc.o.settings(time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if s.since != tc.since || s.window != tc.window || s.shown != tc.shown || s.step != tc.step || s.sel != tc.sel || !s.end.Equal(end) || s.timeout != DefaultTimeout {
				t.Fatalf("got since %s window %s shown %s step %s sel %q end %s timeout %s", s.since, s.window, s.shown, s.step, s.sel, s.end, s.timeout)
			}
			if n := s.end.Sub(s.start)/s.step + 1; n > maxPoints {
				t.Fatalf("%d points", n)
			}
		})
	}
}
