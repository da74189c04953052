package doctor

import (
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
