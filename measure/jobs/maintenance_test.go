package jobs_test

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/measure/experiment"
	"github.com/etcdlab/etcdlab/measure/jobs"
)

// TestMaintenanceFields: a policy that cannot run is refused with one
// line naming its field, before anything starts; a good one plans, with
// the profile's rounds and pause applied to the policies that have them.
func TestMaintenanceFields(t *testing.T) {
	t.Parallel()
	bad := []struct{ fields, want string }{
		{"{op: vacuum}", `maintenance.op: "vacuum": want one of defragment, compact, snapshot, catch-up`},
		{"{order: random}", `maintenance.order: "random": want one of leader-last`},
		{"{trigger: sometimes}", `maintenance.trigger: "sometimes": want one of always, openshift`},
		{"{op: snapshot, trigger: openshift}", "openshift's trigger is a defragmentation's"},
		{"{op: compact, order: leader-last}", "a compaction is the cluster's"},
		{"{db: lots}", `maintenance.db: "lots": want a size such as 256MiB`},
		{"{db: 100GiB}", "up to 64GiB"},
		{"{fragmentation: 0.5}", "fragmentation: 0.5: want 0 to 0.9 of a db given"},
		{"{db: 64MiB, fragmentation: 0.95}", "want 0 to 0.9"},
		{"{rounds: 50}", "rounds: 50: want 1 to 20"},
		{"{keep: -1}", "must not be negative"},
		{"{leader: m9}", `setup "one": "m9" is not a member (m1 to m3)`},
		{"{value_bytes: 1000000}", "value_bytes: 1000000: want 1 to 65536"},
		{`{load: ["put --bogus"]}`, "maintenance.load[0]: "},
	}
	for _, b := range bad {
		text := "setups: [{name: one, members: 3}]\nworkloads:\n  - {name: m, maintenance: " + b.fields + "}\n"
		_, err := experiment.Parse("m.yaml", []byte(text), jobs.Registry())
		if err == nil || !strings.Contains(err.Error(), b.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %q", b.fields, err, b.want)
		}
	}
	text := `setups: [{name: one, members: 3}]
workloads:
  - {name: curve, maintenance: {db: 64MiB, fragmentation: 0.5, order: follower}}
  - {name: policy, maintenance: {db: 64MiB, fragmentation: 0.5, pause: 36s, rounds: 3, base: true}}
  - {name: b2b, maintenance: {db: 64MiB, rounds: 3}}
profiles:
  quick: {description: q, set: {rounds: "2", pause: "10s"}}
`
	s, err := experiment.Parse("m.yaml", []byte(text), jobs.Registry())
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"maintenance defragment, one follower, db 64MiB 50% free",
		"maintenance defragment, followers first and the leader last, 10s apart, db 64MiB 50% free, 2 rounds",
		"maintenance defragment, followers first and the leader last, back to back, db 64MiB, 2 rounds",
	}
	for i, c := range p.Cells {
		if c.Command() != want[i] {
			t.Errorf("cell %d: %q, want %q", i, c.Command(), want[i])
		}
	}
}
