package doctor

import (
	"path/filepath"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// TestOneRootCause: in cases with one injected cause, the top finding is
// that cause on that member, and no other finding (FAIL or WARN) names a
// different cause: what the root explains (slow linearizable reads on
// every member behind a stalled leader or on a member that applies late,
// the log lines they cause) is its evidence, not a finding. The first
// three failed before the causal fold (a network finding beside the
// disk or the CPU, disk findings from the leader's log lines).
func TestOneRootCause(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, cause, member string
	}{
		{"slow-disk-on-follower-slow-reads", "disk", "m2"},
		{"cpu-starved-leader-slow-reads", "cpu", "m1"},
		{"cpu-starved-leader-logs", "cpu", "m1"},
		{"recorded-slow-disk-quiet", "disk", "m2"},
		{"recorded-slow-disk-on-m2", "disk", "m2"},
		{"recorded-cpu-starved-member", "cpu", "m1"},
		// From `etcdlab experiment run incidents` (measure/experiment's
		// TestIncidents runs them live).
		{"incident-cpu-limit-leader", "cpu", "m1"},
		{"incident-far-member", "network", "m3"},
		{"incident-partitioned-member", "network", "m3"},
		{"incident-fragmentation", "fragmentation", "*"},
		{"incident-defrag-leader", "defrag", "m1"},
		{"incident-expensive-reads", "requests", ""},
		{"incident-low-election-timeout", "leader", ""},
		{"incident-nospace", "quota", ""},
		// The same leader so starved under the race detector that it
		// answered no Status in 3 s (built from the case above): not a
		// member that is down.
		{"unresponsive-leader-cpu-limit", "cpu", "m1"},
		// So starved that only 3 local reads completed in the window
		// (built from the same case): too few for a share, a median
		// that is a stall.
		{"few-reads-starved-leader", "cpu", "m1"},
		// Expensive reads that the metrics' mean misses (under the race
		// detector few listings finish in the window): etcd's own lines
		// name them, and they explain m1's slow commits.
		{"expensive-reads-from-logs", "requests", ""},
		// Issue 36: maintenance in progress names itself. A physical
		// compaction of 200,000 versions during the window; m3 killed,
		// 8,000 entries written, restarted as the diagnosis began (a
		// snapshot from the leader, its refused Status and the peers'
		// failed sends are the catch-up's evidence).
		{"recorded-compaction-in-progress", "compaction", ""},
		{"recorded-catch-up", "catch-up", "m3"},
	} {
		doc := readCase(t, filepath.Join(casesDir, tc.file+".json"))
		Judge(doc)
		fs := doc.Doctor.Findings
		if len(fs) == 0 || fs[0].Cause != tc.cause || (tc.member != "*" && fs[0].Member != tc.member) {
			t.Errorf("%s: top finding %+v, want %s on %s", tc.file, fs, tc.cause, tc.member)
			continue
		}
		for _, f := range fs[1:] {
			if f.Status != result.Pass && f.Cause != tc.cause {
				t.Errorf("%s: a %s finding beside the %s: %s", tc.file, f.Cause, tc.cause, f.Summary)
			}
		}
	}
}
