package topology

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

func TestPresetsApply(t *testing.T) {
	want := []string{"ebs-001", "hdd", "multicloud-0", "multicloud-1", "multicloud-2", "multicloud-3", "pmem", "single-az", "ssd-004"}
	if got := strings.Join(Presets(), ","); got != strings.Join(want, ",") {
		t.Fatalf("presets %s", got)
	}
	for _, name := range want {
		tp, err := Load(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tp.Name != name || tp.Description == "" || tp.Source == "" {
			t.Errorf("%s: name %q, description and source must be set", name, tp.Name)
		}
		o := cluster.Options{Members: 3}
		if err := tp.Apply(&o, false, false); err != nil {
			t.Fatalf("%s: apply: %v", name, err)
		}
		if err := o.Validate(); err != nil {
			t.Errorf("%s: options invalid: %v", name, err)
		}
	}
}

func TestMulticloudLinks(t *testing.T) {
	// Round trips between members grow from scenario 0 to 3, in the
	// article's order.
	var prev time.Duration
	for i, name := range []string{"multicloud-0", "multicloud-1", "multicloud-2", "multicloud-3"} {
		tp, _ := Load(name)
		links, err := tp.DirLinks(3)
		if err != nil {
			t.Fatal(err)
		}
		rtt := MaxRTT(links)
		if i > 0 && rtt <= prev {
			t.Errorf("%s max RTT %v not above the previous scenario's %v", name, rtt, prev)
		}
		prev = rtt
	}
	tp, _ := Load("multicloud-3")
	links, _ := tp.DirLinks(3)
	for d, want := range map[wan.Dir]time.Duration{
		{From: "m1", To: "m2"}: 21800 * time.Microsecond, {From: "m2", To: "m1"}: 21800 * time.Microsecond,
		{From: "m3", To: "m2"}: 17400 * time.Microsecond, {From: "client", To: "m3"}: 13150 * time.Microsecond,
	} {
		if got := links[d].Delay; got != want {
			t.Errorf("%s: %v, want %v", d, got, want)
		}
	}
	if _, ok := links[wan.Dir{From: "client", To: "m1"}]; ok {
		t.Error("client -> m1 set: the client runs on m1's node")
	}
}

func TestUniformAndOverrides(t *testing.T) {
	tp, err := Parse([]byte(`
rtt: 40ms
client_rtt: 2ms
links:
  - {from: m2, to: m3, delay: 30ms, jitter: 1ms, bandwidth: 100Mbit, loss: 0.01}
storage: {fsync_delay: 5ms, members: {m3: {fsync_delay: 50ms}}}
etcd: {election_timeout_ms: 3000}
`))
	if err != nil {
		t.Fatal(err)
	}
	o := cluster.Options{Members: 3}
	if err := tp.Apply(&o, false, false); err != nil {
		t.Fatal(err)
	}
	if l := o.Links[wan.Dir{From: "m1", To: "m3"}]; l.Delay != 20*time.Millisecond {
		t.Errorf("m1->m3 %+v", l)
	}
	if l := o.Links[wan.Dir{From: "m2", To: "m3"}]; l.Delay != 30*time.Millisecond || l.Jitter != time.Millisecond || l.Rate != 12_500_000 || l.Loss != 0.01 {
		t.Errorf("m2->m3 %+v", l)
	}
	if l := o.Links[wan.Dir{From: "m3", To: "client"}]; l.Delay != time.Millisecond {
		t.Errorf("m3->client %+v", l)
	}
	if o.FsyncDelay.String() != "5ms" || o.MemberFsyncDelay["m3"].String() != "50ms" {
		t.Errorf("storage: %v, m3 %v", o.FsyncDelay, o.MemberFsyncDelay["m3"])
	}
	// Largest RTT: m2->m3 31 ms + m3->m2 20 ms = 51 ms: etcd's 100 ms
	// heartbeat stands; the election timeout the file gives wins.
	if o.Tuning.HeartbeatMs != 100 || o.Tuning.ElectionMs != 3000 {
		t.Errorf("tuning %+v", o.Tuning)
	}
}

func TestTuned(t *testing.T) {
	for _, tc := range []struct {
		rtt    time.Duration
		hb, el uint
	}{
		{0, 100, 1000},
		{40 * time.Millisecond, 100, 1000},
		{150 * time.Millisecond, 150, 1500},
		{250500 * time.Microsecond, 251, 2510},
	} {
		if hb, el := Tuned(tc.rtt); hb != tc.hb || el != tc.el {
			t.Errorf("Tuned(%v) = %d/%d, want %d/%d", tc.rtt, hb, el, tc.hb, tc.el)
		}
	}
	tp, _ := Parse([]byte("rtt: 300ms\n"))
	o := cluster.Options{Members: 3}
	o.Tuning.HeartbeatMs, o.Tuning.ElectionMs = 100, 1000
	_ = tp.Apply(&o, false, true)
	if o.Tuning.HeartbeatMs != 300 || o.Tuning.ElectionMs != 1000 {
		t.Errorf("kept election, tuned heartbeat: %+v", o.Tuning)
	}
	tp, _ = Parse([]byte("rtt: 300ms\netcd: {defaults: true}\n"))
	o.Tuning.HeartbeatMs = 100
	_ = tp.Apply(&o, false, false)
	if o.Tuning.HeartbeatMs != 100 || o.Tuning.ElectionMs != 1000 {
		t.Errorf("etcd defaults: %+v", o.Tuning)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	for _, tc := range []struct{ yaml, want string }{
		{"rtt: 40\n", `duration 40: write it with a unit, like "20ms"`},
		{"rtt: fast\n", `duration "fast": write it with a unit`},
		{"latency: 40ms\n", `unknown field "latency"`},
		{"links: [{between: [m1, m2, m3], rtt: 1ms}]\n", "links[0]: between needs exactly two ends, not 3"},
		{"links: [{from: m1, to: m2, rtt: 1ms}]\n", "links[0]: m1->m2: rtt needs both directions (between); use delay for one"},
		{"links: [{between: [m1, m2], delay: -5ms}]\n", "links[0]: delay -5ms is negative"},
		{"links: [{between: [m1, m2], bandwidth: fast}]\n", `links[0]: bandwidth "fast": write a positive rate`},
		{"links: [{between: [m1, m2], loss: 1.5}]\n", "links[0]: loss 1.5 is not a probability below 1"},
		{"members: 9\n", "members: 9 is not between 1 and 7"},
		{"storage: {fsync_delay: slow}\n", "storage.fsync_delay:"},
		{"storage: {read_delay: slow}\n", "storage.read_delay:"},
		{"storage: {write_delay: 'fit:file=missing.txt'}\n", "storage.write_delay:"},
	} {
		if err := os.WriteFile(bad, []byte(tc.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		tp, err := Load(bad)
		if err == nil {
			o := cluster.Options{Members: 3}
			err = tp.Apply(&o, false, false)
		}
		if !invalid.Is(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: got %v, want one line of invalid input containing %q", tc.yaml, err, tc.want)
		}
	}
	if _, err := Load("multicloud-9"); !invalid.Is(err) || !strings.Contains(err.Error(), `no preset or file "multicloud-9" (presets: ebs-001, hdd, multicloud-0`) {
		t.Errorf("unknown preset: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); !invalid.Is(err) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	// A link to a member the cluster does not have is caught with the
	// cluster's options.
	tp, _ := Parse([]byte("links: [{between: [m1, m4], rtt: 1ms}]\n"))
	o := cluster.Options{Members: 3}
	if err := tp.Apply(&o, false, false); err != nil {
		t.Fatal(err)
	}
	if err := o.Validate(); !invalid.Is(err) || !strings.Contains(err.Error(), `no member "m4" in a 3-member cluster`) {
		t.Errorf("unknown member: %v", err)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{"100Mbit": 12_500_000, "1Gbit/s": 125_000_000, "10MB": 10_000_000, "500kB/s": 500_000, "64B": 64} {
		if got, err := ParseRate(in); err != nil || got != want {
			t.Errorf("%s: %d %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0MB", "-1MB", "fast", "10"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// TestCommitRTT checks the round trip a commit waits for, per leader: the
// quorum's slowest follower, which with 3 members is the nearer one.
func TestCommitRTT(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	link := func(d time.Duration) wan.Link { return wan.Link{Delay: d} }
	for _, tt := range []struct {
		name  string
		links map[wan.Dir]wan.Link
		names []string
		want  map[string]time.Duration
	}{
		{"multicloud-1: m2 and m3 are close, m1 far from both",
			mustLinks(t, "multicloud-1", 3), []string{"m1", "m2", "m3"},
			map[string]time.Duration{"m1": ms(5.4), "m2": ms(2.3), "m3": ms(2.3)}},
		{"5 members: the second-fastest follower",
			map[wan.Dir]wan.Link{{From: "a", To: "b"}: link(ms(1)), {From: "a", To: "c"}: link(ms(2)), {From: "a", To: "d"}: link(ms(3)), {From: "e", To: "a"}: link(ms(4))},
			[]string{"a", "b", "c", "d", "e"},
			map[string]time.Duration{"a": ms(2), "b": 0, "c": 0, "d": 0, "e": 0}},
		{"no delay between members", map[wan.Dir]wan.Link{{From: "client", To: "m1"}: link(ms(5))}, []string{"m1", "m2", "m3"}, nil},
		{"one member", nil, []string{"m1"}, nil},
	} {
		got := CommitRTT(tt.links, tt.names)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
			continue
		}
		for k, v := range tt.want {
			if d := got[k] - v; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("%s: leader %s: %v, want %v", tt.name, k, got[k], v)
			}
		}
	}
}

func mustLinks(t *testing.T, preset string, n int) map[wan.Dir]wan.Link {
	t.Helper()
	tp, err := Load(preset)
	if err != nil {
		t.Fatal(err)
	}
	links, err := tp.DirLinks(n)
	if err != nil {
		t.Fatal(err)
	}
	return links
}

// TestWriteRTT checks the path of a write from the client through its
// endpoint: multicloud-1's client sits on m1's node, so a write to m1
// with m3 leading goes m1 → m3 (5.4 ms) and m3 commits with m2 (2.3 ms).
func TestWriteRTT(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	links := mustLinks(t, "multicloud-1", 3)
	names := []string{"m1", "m2", "m3"}
	for _, tt := range []struct {
		name      string
		endpoints []string
		want      map[string]time.Duration
	}{
		{"one connection to m1", []string{"m1"}, map[string]time.Duration{"m1": ms(5.4), "m2": ms(5.4 + 2.3), "m3": ms(5.4 + 2.3)}},
		{"connections to m1 and m2", []string{"m1", "m2"}, map[string]time.Duration{
			"m1": (ms(5.4) + ms(5.4+5.4+5.4)) / 2, // via m2: client→m2, m2→m1, commit
			"m2": (ms(5.4+2.3) + ms(5.4+2.3)) / 2,
			"m3": (ms(5.4+2.3) + ms(5.4+2.3+2.3)) / 2}},
	} {
		got := WriteRTT(links, names, tt.endpoints)
		for k, v := range tt.want {
			if d := got[k] - v; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("%s: leader %s: %v, want %v", tt.name, k, got[k], v)
			}
		}
	}
	if got := WriteRTT(nil, names, []string{"m1"}); got != nil {
		t.Errorf("no links: %v", got)
	}
}

// TestEtcdVersions: etcd.version and etcd.members become the cluster's
// Options.Etcd and MemberEtcd; a relative binary path is taken from the
// topology file's directory, a version is kept as written, and --etcd
// (already in the options) wins over the file's version.
func TestEtcdVersions(t *testing.T) {
	for _, tc := range []struct {
		yaml, flag       string
		wantEtcd, wantM3 string
	}{
		{"members: 3\netcd: {version: 3.5.35, members: {m3: bin/etcd}}\n", "", "3.5.35", "/topo/bin/etcd"},
		{"members: 3\netcd: {version: /usr/bin/etcd}\n", "", "/usr/bin/etcd", ""},
		{"members: 3\netcd: {version: 3.5.35}\n", "3.7.3", "3.7.3", ""},
	} {
		tp, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		tp.Dir = "/topo"
		o := cluster.Options{Members: 3, Etcd: tc.flag}
		if err := tp.Apply(&o, false, false); err != nil {
			t.Fatal(err)
		}
		if o.Etcd != tc.wantEtcd || o.MemberEtcd["m3"] != tc.wantM3 {
			t.Errorf("%q (--etcd %q): Etcd %q, m3 %q; want %q, %q", tc.yaml, tc.flag, o.Etcd, o.MemberEtcd["m3"], tc.wantEtcd, tc.wantM3)
		}
	}
}
