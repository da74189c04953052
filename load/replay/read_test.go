package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodProfile = `kind: etcdlab-profile
version: 1
source: {taken: "2026-11-28T00:00:00Z", sources: [metrics]}
operations:
  - {op: put, prefix: /registry/pods/, rate: 12.5, valueBytes: 2048}
  - {op: range, rate: 3, rangeKeys: 10, rangeBytes: 20480, serializable: 0.5}
watches: {watchers: 10, eventsPerSecond: 50}
leases: {count: 5, ttl: 10s, keepalivesPerSecond: 1.5}
totals: {requestsPerSecond: 15.5}
`

// TestParse: a good profile reads back; every kind of bad one is a one-line
// error that says what is wrong.
func TestParse(t *testing.T) {
	p, err := Parse([]byte(goodProfile))
	if err != nil {
		t.Fatalf("good profile: %v", err)
	}
	if len(p.Operations) != 2 || p.Operations[0].Rate != 12.5 || p.Leases.TTL.D().Seconds() != 10 {
		t.Errorf("good profile read as %+v", p)
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"not yaml", "{{{", "not a profile"},
		{"no kind", "version: 1\n", "not a profile: no kind"},
		{"other kind", "kind: bench\nversion: 1\n", `kind "bench"`},
		{"future version", strings.Replace(goodProfile, "version: 1", "version: 2", 1), "profile version 2 is newer than this etcdlab reads (1)"},
		{"version 0", strings.Replace(goodProfile, "version: 1", "version: 0", 1), "versions start at 1"},
		{"zero rate", strings.Replace(goodProfile, "rate: 12.5", "rate: 0", 1), "rate must be positive, not 0"},
		{"negative rate", strings.Replace(goodProfile, "rate: 12.5", "rate: -3", 1), "rate must be positive, not -3"},
		{"unknown op", strings.Replace(goodProfile, "op: put", "op: compact", 1), `unknown operation "compact"`},
		{"unknown field", strings.Replace(goodProfile, "valueBytes: 2048", "valueBytes: 2048, speed: 3", 1), "unknown field"},
		{"negative size", strings.Replace(goodProfile, "valueBytes: 2048", "valueBytes: -1", 1), "valueBytes must not be negative"},
		{"share past 1", strings.Replace(goodProfile, "serializable: 0.5", "serializable: 2", 1), "a share from 0 to 1"},
		{"value past the limit", strings.Replace(goodProfile, "valueBytes: 2048", "valueBytes: 2000000", 1), "past etcd's request limit"},
		{"nothing", "kind: etcdlab-profile\nversion: 1\nsource: {taken: x, sources: []}\noperations: []\ntotals: {requestsPerSecond: 0}\n", "nothing to replay"},
		{"leases without ttl", strings.Replace(goodProfile, "ttl: 10s, ", "", 1), "need a positive ttl"},
	} {
		_, err := Parse([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line with %q", tt.name, err, tt.want)
		}
	}
}

// TestReadFile: a missing file, a directory and a good file; a sample by
// name; an unknown sample.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(good, []byte(goodProfile), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(good); err != nil {
		t.Errorf("good file: %v", err)
	}
	for _, tt := range []struct{ path, want string }{
		{filepath.Join(dir, "none.yaml"), "no such file"},
		{dir, "not a regular file"},
		{"sample:nosuch", `no sample profile "nosuch"`},
		{"sample:../x", `no sample profile "../x"`},
	} {
		if _, err := ReadFile(tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.path, err, tt.want)
		}
	}
	for _, name := range Samples() {
		if _, err := ReadFile(SamplePrefix + name); err != nil {
			t.Errorf("sample %s: %v", name, err)
		}
	}
}

// TestMarshalRoundTrip: what Marshal writes, Parse reads back the same.
func TestMarshalRoundTrip(t *testing.T) {
	p, err := Parse([]byte(goodProfile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(b)
	if err != nil {
		t.Fatalf("reading back:\n%s\n%v", b, err)
	}
	if q.Operations[1].Serializable != 0.5 || q.Watches.Watchers != 10 || q.Leases.TTL != p.Leases.TTL {
		t.Errorf("read back %+v, wrote %+v", q, p)
	}
}
