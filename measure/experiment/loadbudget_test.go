package experiment

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestLoadCPUsField: a setup's load_cpus is a number of cores on a local
// setup, without a fault timeline; each mistake is one line naming the
// field, and a good one makes the plan budgeted.
func TestLoadCPUsField(t *testing.T) {
	t.Parallel()
	with := func(field string) string {
		return strings.Replace(minimal, "    members: 1\n", "    members: 1\n"+field, 1)
	}
	for _, tt := range []struct {
		name, text, want string
	}{
		{"negative", with("    load_cpus: -1\n"), "x.yaml line 5: setups[0].load_cpus: -1: want a number of cores from 0.01"},
		{"below a quota", with("    load_cpus: 0.001\n"), "setups[0].load_cpus: 0.001: want a number of cores from 0.01"},
		{"live", strings.Replace(minimal, "    members: 1\n", "    endpoints: [http://127.0.0.1:2379]\n    load_cpus: 1\n", 1),
			"setups[0].load_cpus: is for local setups; against a live cluster run bench --endpoints --load-cpus"},
		{"with faults", with("    load_cpus: 0.5\n") + "faults:\n  - {at: 1s, kill: leader}\n",
			"setups[0].load_cpus: and faults cannot go together"},
		{"not a number", with("    load_cpus: half\n"), "cannot unmarshal !!str `half` into float64"},
		{"good", with("    load_cpus: 0.5\n"), ""},
	} {
		s, err := parseSpec("x.yaml", []byte(tt.text))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want == "":
			p, err := s.Plan("")
			if err != nil || !p.LoadBudgeted() || p.Cells[0].Setup.LoadCPUs != 0.5 {
				t.Errorf("%s: plan budgeted %v (%v)", tt.name, err == nil && p.LoadBudgeted(), err)
			}
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case !invalid.Is(err) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tt.want):
			t.Errorf("%s:\n got %v\nwant one line of invalid input with %s", tt.name, err, tt.want)
		}
	}
	s, err := parseSpec("x.yaml", []byte(minimal+"faults:\n  - {at: 1s, kill: leader}\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("")
	if err != nil {
		t.Fatal(err)
	}
	if p.LoadBudgeted() {
		t.Error("a plan without load_cpus is budgeted")
	}
	if err := checkLoadOverride(p, 0.5); err == nil || !strings.Contains(err.Error(), "LoadCPUs and the experiment's faults cannot go together") {
		t.Errorf("--load-cpus with faults: %v", err)
	}
	if err := checkLoadOverride(p, 0); err != nil {
		t.Errorf("no --load-cpus: %v", err)
	}
}
