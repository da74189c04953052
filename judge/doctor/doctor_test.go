package doctor

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestStarvation: a member whose local reads stall far more often than
// the others' is CPU-starved, if there were enough reads to tell a share
// from a hiccup.
func TestStarvation(t *testing.T) {
	t.Parallel()
	member := func(name string, samples, stalled int) result.DoctorMember {
		return result.DoctorMember{Name: name, Reachable: true, ConnectSeconds: 0.001,
			ReadSerial: &result.ReadFigure{Samples: samples, Stalled: stalled, P50: 0.002, Max: 0.2}}
	}
	for _, tc := range []struct {
		name   string
		m3     result.DoctorMember
		starve bool
	}{
		{"a third of 30 reads", member("m3", 30, 10), true},
		{"1 of 3 reads", member("m3", 3, 1), false},
		{"1 of 30 reads", member("m3", 30, 1), false},
	} {
		doc := &result.Document{Kind: result.KindDoctor, Doctor: &result.Doctor{Members: []result.DoctorMember{member("m1", 30, 0), member("m2", 30, 0), tc.m3}}}
		Judge(doc)
		found := false
		for _, f := range doc.Doctor.Findings {
			found = found || (f.Cause == "cpu" && f.Member == "m3")
		}
		if found != tc.starve {
			t.Errorf("%s: starved %v, want %v: %+v", tc.name, found, tc.starve, doc.Doctor.Findings)
		}
	}
}

// TestElectionsRuledOut: leader changes that nothing explains name the
// measurements that rule the other causes out; a local read median past a
// stall rules out no CPU, even where the starvation rule did not fire
// (here: too few reads to judge a share, and m2's reads slow too).
func TestElectionsRuledOut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		m1P50, m2P50 float64
		cpuOut       bool
	}{
		{"every member's local reads prompt", 0.002, 0.002, true},
		{"m1's local reads' median a stall", 2.6, 0.06, false},
	} {
		member := func(name string, samples int, p50 float64) result.DoctorMember {
			return result.DoctorMember{Name: name, Reachable: true, ConnectSeconds: 0.001,
				ReadSerial: &result.ReadFigure{Samples: samples, P50: p50, Max: p50},
				Metrics:    &result.DoctorMetrics{LeaderChanges: 3, WALFsyncP99: 0.001, HasLeader: true}}
		}
		doc := &result.Document{Kind: result.KindDoctor, Doctor: &result.Doctor{WindowSeconds: 8,
			Members: []result.DoctorMember{member("m1", 3, tc.m1P50), member("m2", 30, tc.m2P50), member("m3", 30, 0.002)}}}
		Judge(doc)
		var evidence []string
		for _, f := range doc.Doctor.Findings {
			if f.Cause == "leader" {
				evidence = f.Evidence
			}
		}
		if evidence == nil {
			t.Fatalf("%s: no leader finding: %+v", tc.name, doc.Doctor.Findings)
		}
		cpuOut := false
		for _, e := range evidence {
			cpuOut = cpuOut || strings.HasPrefix(e, "the CPU: no member stalls")
		}
		if cpuOut != tc.cpuOut {
			t.Errorf("%s: the CPU ruled out %v, want %v: %q", tc.name, cpuOut, tc.cpuOut, evidence)
		}
	}
}
