package topology

import (
	"bytes"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// FuzzParse feeds Parse topology files: it never panics; its errors, and
// Apply's, are one line of invalid input; a topology it accepts writes
// (Marshal) as YAML that parses back to one written the same; and the
// options Apply sets are refused as invalid input by Validate, or hold
// only valid links.
func FuzzParse(f *testing.F) {
	for _, name := range Presets() {
		b, _ := preset(name)
		f.Add(b)
	}
	for _, text := range []string{
		"members: 3\nrtt: 50ms\nclient_rtt: 2ms\n",
		"links:\n  - {between: [m1, m2], rtt: 100ms, jitter: 5ms, loss: 0.01, bandwidth: 100Mbit}\n  - {from: client, to: m3, delay: 10ms}\n",
		"storage:\n  fsync_delay: lognormal:p50=20ms,p99=270ms\n  wal_only: true\n  members: {m2: {fsync_delay: 10ms}}\n",
		"storage: {read_delay: 13ms, write_delay: 'fit:p50=1ms,p99=9ms'}\n",
		"storage: {fsync_delay: 'fit:file=/dev/zero'}\n",
		"storage: {tmpfs: true}\netcd: {heartbeat_interval_ms: 50, election_timeout_ms: 500}\n",
		"etcd: {defaults: true}\nrtt: 0\n",
		"links: [{between: [m1], rtt: 1s}]\n",
		"nonsense: 1\n",
		"rtt: 5\n",
	} {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tp, err := Parse(b)
		if err != nil {
			oneInvalidLine(t, "Parse", err)
			return
		}
		out, err := tp.Marshal()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("its own YAML refused: %v\n%s", err, out)
		}
		// Compared as written: an empty list and none are one topology.
		if again, err := back.Marshal(); err != nil || !bytes.Equal(out, again) {
			t.Fatalf("round trip changed it (%v):\n%s\n%s", err, out, again)
		}
		o := cluster.Options{Members: 3}
		if err := tp.Apply(&o, false, false); err != nil {
			oneInvalidLine(t, "Apply", err)
			return
		}
		// A uniform rtt is checked with the cluster's options, not here
		// ("rtt: 200s" is refused as link m1->m2's delay): what Apply
		// sets is refused as invalid input or is valid.
		if err := o.Validate(); err != nil {
			oneInvalidLine(t, "Validate after Apply", err)
			return
		}
		for d, l := range o.Links {
			if err := l.Validate(); err != nil {
				t.Fatalf("Apply set an invalid link %v that Validate let through: %v", d, err)
			}
		}
	})
}

// FuzzParseRate feeds ParseRate bandwidths: a rate it accepts is a
// positive number of bytes per second; a refusal is invalid input.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100Mbit", "1Gbit", "10MB", "500kB", "1000B", "8bit/s", " 2.5 GB ", "0MB", "-1kB", "MB", "1e3kbit", "1e300GB", "NaNMB", "+InfB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			oneInvalidLine(t, "ParseRate", err)
			return
		}
		if r <= 0 {
			t.Fatalf("ParseRate(%q) = %d, not a positive rate", s, r)
		}
	})
}

// oneInvalidLine fails unless err is one line of invalid input.
func oneInvalidLine(t *testing.T, what string, err error) {
	t.Helper()
	if invalid.As(err) == nil {
		t.Fatalf("%s: %T %v is not an invalid-input error", what, err, err)
	}
	if strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("%s: error of more than one line: %q", what, err)
	}
}
