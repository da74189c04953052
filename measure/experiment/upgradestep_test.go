package experiment

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestUpgradeStepYAML: "upgrade: ETCD" is a timeline step whose value is
// the etcd to move to, not a member; what cannot be one is one line of
// invalid input naming the step, and the faults' own errors are as they
// were.
func TestUpgradeStepYAML(t *testing.T) {
	t.Parallel()
	const three = `name: up
setups:
  - {name: s, members: 3, etcd: {version: 3.5.35}}
workloads:
  - name: put
    bench: --duration=30s put --rate=100
`
	for _, tt := range []struct {
		name, faults string
		want         string // "": parses; else a part of the error
		steps        []string
	}{
		{"versions", "  - {at: 10s, upgrade: 3.6.16}\n  - {at: 40s, upgrade: \"3.7\"}\n", "", []string{"at 10s upgrade 3.6.16", "at 40s upgrade 3.7"}},
		{"embedded", "  - {at: 1s, upgrade: embedded}\n", "", []string{"at 1s upgrade embedded"}},
		{"a binary", "  - {at: 1s, upgrade: ./bin/etcd}\n", "", []string{"at 1s upgrade ./bin/etcd"}},
		{"downgrade", "  - {at: 1s, downgrade: 3.5.35}\n", "", []string{"at 1s downgrade 3.5.35"}},
		{"downgrade for", "  - {at: 1s, downgrade: 3.5.35, for: 5s}\n", "faults[0].for: for undoes a kill, pause or partition; a downgrade has none", nil},
		{"beside a fault", "  - {at: 1s, upgrade: 3.6.16}\n  - {at: 2s, kill: m1, for: 1s}\n", "", []string{"at 1s upgrade 3.6.16", "at 2s kill m1, restart after 1s"}},
		{"empty is no action", "  - {at: 1s, upgrade: \"\"}\n", "x.yaml line 8: faults[0]: a fault needs exactly one of kill,", nil},
		{"not a version", "  - {at: 1s, upgrade: latest}\n", `x.yaml line 8: faults[0].upgrade: upgrade to "latest": give an etcd version (3.6.16), a binary's path, or embedded`, nil},
		{"two words", "  - {at: 1s, upgrade: 3.6.16 3.7.3}\n", `faults[0].upgrade: upgrade takes one etcd (a version such as 3.6.16, a binary's path, or embedded), not "3.6.16 3.7.3"`, nil},
		{"for", "  - {at: 1s, upgrade: 3.6.16, for: 5s}\n", "x.yaml line 8: faults[0].for: for undoes a kill, pause or partition; an upgrade has none", nil},
		{"with a fault", "  - {at: 1s, upgrade: 3.6.16, kill: m1}\n", "faults[0]: a fault needs exactly one of kill, pause, resume, restart, partition, heal, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up or alarm-disarm, or upgrade or downgrade (an etcd)", nil},
		{"not a string", "  - {at: 1s, upgrade: [3.6.16]}\n", "x.yaml line 8: cannot unmarshal !!seq into string", nil},
		{"twice", "  - {at: 1s, upgrade: 3.6.16, upgrade: 3.7.3}\n", `x.yaml line 8: mapping key "upgrade" already defined at line 8`, nil},
		{"misspelt", "  - {at: 1s, upgrad: 3.6.16}\n", `x.yaml line 8: unknown field "upgrad"`, nil},
		{"fault target still checked", "  - {at: 1s, upgrade: 3.6.16}\n  - {at: 2s, kill: m4}\n", `faults[1].kill: "m4" is not a member of setup "s"`, nil},
	} {
		s, err := parseSpec("x.yaml", []byte(three+"faults:\n"+tt.faults))
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			var got []string
			for i := range s.Faults {
				got = append(got, s.Faults[i].Describe())
			}
			if strings.Join(got, "|") != strings.Join(tt.steps, "|") {
				t.Errorf("%s: steps %q, want %q", tt.name, got, tt.steps)
			}
			continue
		}
		switch {
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case !invalid.Is(err):
			t.Errorf("%s: %v is not an invalid-input error", tt.name, err)
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: more than one line: %q", tt.name, err)
		case !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s:\n got %s\nwant %s", tt.name, err, tt.want)
		}
	}
}

// TestUpgradeNeedsTheLoadInProcess: a setup with load_cpus sends its load
// from another process, where no timeline runs: an upgrade step is
// refused with it, as every fault is.
func TestUpgradeNeedsTheLoadInProcess(t *testing.T) {
	t.Parallel()
	text := `name: up
setups:
  - {name: s, members: 3, load_cpus: 1}
workloads:
  - name: put
    bench: --duration=30s put --rate=100
faults:
  - {at: 1s, upgrade: 3.6.16}
`
	_, err := parseSpec("x.yaml", []byte(text))
	if err == nil || !strings.Contains(err.Error(), "faults cannot go together") {
		t.Errorf("load_cpus with an upgrade step: %v", err)
	}
}

// TestLongGrace: a cell's end waits for a long-running fault in progress
// as long as the longest its timeline's faults declare, and not at all
// without one.
func TestLongGrace(t *testing.T) {
	t.Parallel()
	up := Fault{Actions: map[string]string{"upgrade": "3.6.16"}}
	kill := Fault{Actions: map[string]string{"kill": "m1"}}
	if got, want := newTimeline(nil, []Fault{kill, up}).longGrace(), about("upgrade").Timeout; got != want || want == 0 {
		t.Errorf("with an upgrade: %v, want %v (declared)", got, want)
	}
	if got := newTimeline(nil, []Fault{kill}).longGrace(); got != 0 {
		t.Errorf("without a long-running fault: %v", got)
	}
}
