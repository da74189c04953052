package experiment

import (
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
)

// minimal is a valid file the error cases below break one field of.
const minimal = `name: tiny
setups:
  - name: one
    members: 1
workloads:
  - name: put
    bench: --clients={clients} put --total=100
sweep:
  clients: [1, 2]
`

// TestParseErrors: every mistake is one line of invalid input that names
// the file, the line and what is wrong.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text, want string
	}{
		{"unknown field", strings.Replace(minimal, "    members: 1\n", "    members: 1\n    memebers: 3\n", 1), `x.yaml line 5: unknown field "memebers"`},
		{"unknown top-level field", minimal + "iteration: 3\n", `x.yaml line 10: unknown field "iteration"`},
		{"bad duration", minimal + "faults:\n  - {at: 10x, kill: leader}\n", `x.yaml line 11: "10x" is not a duration`},
		{"unknown preset", strings.Replace(minimal, "    members: 1\n", "    topology: multicloud-9\n", 1), `x.yaml line 4: setups[0].topology: no preset or file "multicloud-9"`},
		{"placeholder without values", strings.Replace(minimal, "--total=100", "--total={total}", 1), "x.yaml line 7: workloads[0].bench: {total} has no values: add total to sweep"},
		{"sweep unused", minimal + "  rate: [1]\n", "x.yaml line 10: sweep.rate: no workload uses {rate}"},
		{"faults on live endpoints", minimal + "  - name: live\n    endpoints: [http://127.0.0.1:2379]\n", ""},
		{"bad bench flag", strings.Replace(minimal, "--total=100", "--totl=100", 1), "x.yaml line 7: workloads[0].bench: cell one/put/clients=1 (profile full): bench put: unknown flag: --totl"},
		{"bad bench value", strings.Replace(minimal, "--total=100", "--key-size=0", 1), "x.yaml line 7: workloads[0].bench: cell one/put/clients=1 (profile full): --key-size must be at least 1"},
		{"bench flag from the setup", strings.Replace(minimal, "put --total", "--endpoints=x put --total", 1), "--endpoints: the setup gives the cluster"},
		{"bench line serves metrics", strings.Replace(minimal, "put --total", "--listen-metrics=:9100 put --total", 1), "--listen-metrics: the experiment serves one endpoint for all its cells"},
		{"sweep value makes a bad line", strings.Replace(minimal, "[1, 2]", "[1, 0]", 1), "cell one/put/clients=0 (profile full): --clients must be at least 1"},
		{"two kinds", strings.Replace(minimal, "    bench:", "    disk: {}\n    bench:", 1), "x.yaml line 6: workloads[0]: workload \"put\" needs exactly one of bench, disk, check, doctor or maintenance"},
		{"bad storage", strings.Replace(minimal, "    members: 1\n", "    storage: ssd\n", 1), `x.yaml line 4: setups[0].storage: "ssd": want disk, tmpfs, dir:PATH or slow:DELAY`},
		{"bad slow delay", strings.Replace(minimal, "    members: 1\n", "    storage: slow:fast\n", 1), `setups[0].storage: slow: "fast": want a duration`},
		{"bad tuning", strings.Replace(minimal, "    members: 1\n", "    etcd: {heartbeat_interval_ms: 500, election_timeout_ms: 1000}\n", 1), "setups[0].etcd: election_timeout_ms (1000 ms) must be at least 5 times heartbeat_interval_ms (500 ms)"},
		{"too many members", strings.Replace(minimal, "members: 1", "members: 9", 1), "x.yaml line 4: setups[0].members: members must be between 1 and 7, not 9"},
		{"duplicate setup", strings.Replace(minimal, "workloads:", "  - name: one\nworkloads:", 1), `x.yaml line 5: setups[1].name: a second setup named "one"`},
		{"fault target", minimal + "faults:\n  - {at: 1s, kill: m2}\n", `x.yaml line 11: faults[0].kill: "m2" is not a member of setup "one" (m1 to m1)`},
		{"fault unknown action", minimal + "faults:\n  - {at: 1s, link: m1}\n", `x.yaml line 11: unknown field "link"`},
		{"fault key twice", minimal + "faults:\n  - {at: 1s, kill: m1, kill: m1}\n", `x.yaml line 11: mapping key "kill" already defined at line 11`},
		{"fault not a mapping", minimal + "faults:\n  - 5\n", "x.yaml line 11: cannot unmarshal !!int `5` into a Fault"},
		{"fault target not a string", minimal + "faults:\n  - {at: 1s, kill: [m1]}\n", "x.yaml line 11: cannot unmarshal !!seq into string"},
		{"fault two actions", minimal + "faults:\n  - {at: 1s, kill: m1, pause: m1}\n", "x.yaml line 11: faults[0]: a fault needs exactly one of"},
		{"published metric", minimal + "published:\n  - {match: {setup: one}, metric: qps, value: 1}\n", `x.yaml line 11: published[0].metric: unknown metric "qps"`},
		{"published match", minimal + "published:\n  - {match: {setup: two}, metric: throughput_rps, value: 1}\n", `x.yaml line 11: published[0].match.setup: no cell has setup "two"`},
		{"profile sweep", minimal + "profiles:\n  quick: {sweep: {conns: [1]}}\n", `x.yaml line 11: profiles.quick.sweep.conns: "conns" is not swept by the file`},
		{"profile workload", minimal + "profiles:\n  quick: {workloads: [put, get]}\n", `x.yaml line 11: profiles.quick.workloads[1]: no workload "get"`},
		{"profile setup", minimal + "profiles:\n  quick: {setups: [one, two]}\n", `x.yaml line 11: profiles.quick.setups[1]: no setup "two"`},
		{"mark on an unknown param", minimal + "marks:\n  - {param: rtt_ms, at: 14, label: x}\n", `x.yaml line 11: marks[0].param: "rtt_ms" is neither swept nor a setup's param`},
		{"mark without a label", minimal + "marks:\n  - {param: clients, at: 14}\n", `x.yaml line 11: marks[0]: a mark needs a label`},
		{"profile set", minimal + "profiles:\n  quick: {set: {totl: 5}}\n", "x.yaml line 11: profiles.quick.set.totl: no bench workload has --totl"},
		{"compare along nothing", minimal + "compare:\n  - {along: storage, base: ssd}\n", `x.yaml line 11: compare[0].along: "storage": compare along setup, workload, a swept parameter or a setup's param`},
		{"compare base no cell has", minimal + "compare:\n  - {along: clients, base: \"3\"}\n", `compare[0].base: no cell has clients "3" (1, 2)`},
		{"knee not a param", minimal + "knee: rtt_ms\n", `x.yaml line 10: knee: "rtt_ms" is neither swept nor a setup's param`},
		{"knee not numeric", strings.Replace(minimal, "    members: 1\n", "    members: 1\n    params: {where: far}\n", 1) + "knee: where\n", `knee: where takes the value "far": a knee needs numbers`},
		{"setup param shadows the sweep", strings.Replace(minimal, "    members: 1\n", "    members: 1\n    params: {clients: \"5\"}\n", 1), `setups[0].params.clients: "clients": a param is lower case letters, digits and _, and not setup, workload or a swept parameter`},
		{"syntax", minimal + "  - {\n", "x.yaml line 8: did not find expected key"},
		{"type", strings.Replace(minimal, "members: 1", "members: one", 1), "x.yaml line 4: cannot unmarshal !!str `one` into int"},
		{"empty", "", "x.yaml: the file is empty"},
		{"two documents", minimal + "---\nname: b\n", "x.yaml line 10: one experiment per file"},
		{"live with storage", strings.Replace(minimal, "    members: 1\n", "    endpoints: [http://127.0.0.1:2379]\n    storage: tmpfs\n", 1), "x.yaml line 5: setups[0].storage: a live setup (endpoints) takes only connection fields"},
		{"local with member_cores", strings.Replace(minimal, "    members: 1\n", "    member_cores: 4\n", 1), "x.yaml line 4: setups[0].member_cores: member_cores is for live setups (endpoints)"},
		{"live with negative member_cores", strings.Replace(minimal, "    members: 1\n", "    endpoints: [http://127.0.0.1:2379]\n    member_cores: -2\n", 1), "x.yaml line 5: setups[0].member_cores: -2: want the cores of each member's machine"},
		{"local with cacert", strings.Replace(minimal, "    members: 1\n", "    cacert: ca.crt\n", 1), "x.yaml line 4: setups[0].cacert: cacert is for live setups (endpoints)"},
		{"bad name", strings.Replace(minimal, "name: tiny", "name: Tiny Exp", 1), `x.yaml line 1: name: "Tiny Exp"`},
		{"leader not a member", strings.Replace(minimal, "    members: 1\n", "    members: 3\n    leader: m4\n", 1), `setups[0].leader: leader must be a member, m1 to m3, not "m4"`},
		{"bad budget", strings.Replace(minimal, "    members: 1\n", "    cpus: -1\n", 1), "setups[0].cpus: cpus must be a number of CPUs from 0.01"},
		{"budget of no member", strings.Replace(minimal, "    members: 1\n", "    member_cpus: {m9: 1}\n", 1), `setups[0].member_cpus: member_cpus names "m9", not a member (m1 to m3)`},
		{"incident on an unknown setup", strings.Replace(minimal, "sweep:", "  - name: inc\n    setups: [nope]\n    doctor: {expect: {cause: disk}}\nsweep:", 1), `workloads[1].setups[0]: no setup named "nope"`},
		{"incident expects no such cause", strings.Replace(minimal, "sweep:", "  - name: inc\n    doctor: {expect: {cause: gremlins}}\nsweep:", 1), `workloads[1].doctor.expect.cause: "gremlins": want one of`},
		{"fault argument", minimal + "faults:\n  - {at: 1s, cpulimit: m1 0.1 9}\n", "faults[0].cpulimit: fault cpulimit needs a member name and optionally its CPUs"},
	} {
		text := tt.text
		want := tt.want
		if tt.name == "faults on live endpoints" {
			text = strings.Replace(minimal, "workloads:", "  - name: live\n    endpoints: [http://127.0.0.1:2379]\nworkloads:", 1) + "faults:\n  - {at: 1s, kill: leader}\n"
			want = `x.yaml line 12: faults: faults need local setups: setup "live" (setups[1]) is a live cluster`
		}
		_, err := parseSpec("x.yaml", []byte(text))
		switch {
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case !invalid.Is(err):
			t.Errorf("%s: %v is not an invalid-input error", tt.name, err)
		case strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: more than one line: %q", tt.name, err)
		case !strings.Contains(err.Error(), want):
			t.Errorf("%s:\n got %s\nwant %s", tt.name, err, want)
		}
	}
}

// TestPlanCells: the matrix is setups × workloads × the sweep values each
// workload uses, in order, with the profile's values and overrides.
func TestPlanCells(t *testing.T) {
	t.Parallel()
	text := `name: m
setups:
  - {name: a, members: 1}
  - {name: b, members: 1, storage: tmpfs}
workloads:
  - name: put
    bench: --conns={conns} --clients={clients} put --total=100
  - name: fio
    disk: {runtime: 30s}
sweep:
  clients: [1, 10]
  conns: [1, 2]
warmup: "50"
iterations: 2
profiles:
  quick:
    sweep: {clients: [5]}
    iterations: 1
    set: {total: 20, clients: 7}
    disk_runtime: 5s
`
	s, err := parseSpec("m.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range p.Cells {
		ids = append(ids, c.ID)
	}
	want := "a/put/clients=1/conns=1 a/put/clients=1/conns=2 a/put/clients=10/conns=1 a/put/clients=10/conns=2 a/fio " +
		"b/put/clients=1/conns=1 b/put/clients=1/conns=2 b/put/clients=10/conns=1 b/put/clients=10/conns=2 b/fio"
	if strings.Join(ids, " ") != want {
		t.Fatalf("cells:\n %s\nwant\n %s", strings.Join(ids, " "), want)
	}
	c := p.Cells[2]
	if benchOf(&c).Config.Clients[0] != 10 || benchOf(&c).Config.Conns[0] != 1 || benchOf(&c).Config.Iterations != 2 || benchOf(&c).Config.Warmup != "50" ||
		c.Params["clients"] != "10" || c.Params["setup"] != "a" || c.Params["workload"] != "put" {
		t.Errorf("cell %s: %+v %v", c.ID, benchOf(&c).Config, c.Params)
	}
	if diskOf(&p.Cells[4]).Runtime.D().Seconds() != 30 {
		t.Errorf("fio runtime %v", diskOf(&p.Cells[4]).Runtime)
	}
	q, err := s.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Cells) != 6 {
		t.Fatalf("quick: %d cells", len(q.Cells))
	}
	// set replaces the line's own --total and the substituted --clients
	// (a list flag: it must not become 5,7).
	qc := benchOf(&q.Cells[0]).Config
	if qc.Total != 20 || len(qc.Clients) != 1 || qc.Clients[0] != 7 || qc.Iterations != 1 {
		t.Errorf("quick cell: %+v (line %q)", qc, q.Cells[0].Command())
	}
	if diskOf(&q.Cells[2]).Runtime.D().Seconds() != 5 {
		t.Errorf("quick fio runtime %v", diskOf(&q.Cells[2]).Runtime)
	}
	if _, err := s.Plan("slow"); err == nil || !strings.Contains(err.Error(), `no profile "slow" (profiles: full, quick)`) {
		t.Errorf("unknown profile: %v", err)
	}
	// A profile's setups: only those setups' cells, and only they in the
	// printed plan.
	one, err := parseSpec("m.yaml", []byte(strings.Replace(text, "    iterations: 1\n", "    iterations: 1\n    setups: [b]\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	q, err = one.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	if err := WritePlan(&printed, q); err != nil {
		t.Fatal(err)
	}
	if len(q.Cells) != 3 || q.Cells[0].Setup.Name != "b" || strings.Contains(printed.String(), "\n  a ") || !strings.Contains(printed.String(), "\n  b ") {
		t.Errorf("quick on setup b: %d cells, first on %s; plan:\n%s", len(q.Cells), q.Cells[0].Setup.Name, printed.String())
	}
	// A profile's workloads: only those workloads' cells.
	put, err := parseSpec("m.yaml", []byte(strings.Replace(text, "    iterations: 1\n", "    iterations: 1\n    workloads: [put]\n", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if q, err = put.Plan("quick"); err != nil {
		t.Fatal(err)
	}
	ids = nil
	for _, c := range q.Cells {
		ids = append(ids, c.ID)
	}
	if want := "a/put/clients=5/conns=1 a/put/clients=5/conns=2 b/put/clients=5/conns=1 b/put/clients=5/conns=2"; strings.Join(ids, " ") != want {
		t.Errorf("quick on workload put: %s, want %s", strings.Join(ids, " "), want)
	}
}

// TestFaultActionFields holds the actions a step may name to lab/cluster's
// registry: each is a fault that takes a member or is the cluster's own,
// read from the file by its name.
func TestFaultActionFields(t *testing.T) {
	t.Parallel()
	if got, want := actionNames(), "kill, pause, resume, restart, partition, heal, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up or alarm-disarm"; got != want {
		t.Errorf("actionNames() = %q, want %q", got, want)
	}
	f := Fault{Actions: map[string]string{"partition": "m2"}}
	if a, target := f.Action(); a != "partition" || target != "m2" || len(f.actions()) != 1 {
		t.Errorf("Action() = %s %s (%v)", a, target, f.actions())
	}
	if !about("partition").Emulated || about("kill").Emulated || about("restart").Undoes != "kill" || about("bogus").TakesMember() {
		t.Error("about does not describe the registry's faults")
	}
}
