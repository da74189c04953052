package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// TestParseFault holds the registry to the CLI's messages: an unknown
// fault and wrong arguments are invalid-input errors that say what would
// do.
func TestParseFault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string // "" for no error
	}{
		{"kill", []string{"m1"}, ""},
		{"pause", []string{"m2"}, ""},
		{"resume", []string{"m2"}, ""},
		{"restart", []string{"m1"}, ""},
		{"partition", []string{"m1"}, ""},
		{"partition", []string{"m1", "m2"}, ""},
		{"heal", []string{"m1", "m2"}, ""},
		{"link", []string{"client", "m1"}, ""},
		{"cpulimit", []string{"m1"}, ""},
		{"cpulimit", []string{"m1", "0.5"}, ""},
		{"cpuunlimit", []string{"m1"}, ""},
		{"bogus", []string{"m1"}, `unknown fault "bogus": kill, pause, resume, restart, partition, heal, link, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up, alarm-disarm, upgrade or downgrade`},
		{"", nil, `unknown fault "": kill, pause, resume, restart, partition, heal, link, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up, alarm-disarm, upgrade or downgrade`},
		{"Kill", []string{"m1"}, `unknown fault "Kill": kill, pause, resume, restart, partition, heal, link, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up, alarm-disarm, upgrade or downgrade`},
		{"kill", nil, "fault kill needs one member name"},
		{"kill", []string{"m1", "m2"}, "fault kill needs one member name"},
		{"pause", nil, "fault pause needs one member name"},
		{"resume", []string{"a", "b"}, "fault resume needs one member name"},
		{"restart", nil, "fault restart needs one member name"},
		{"partition", nil, "fault partition needs one or two member names"},
		{"partition", []string{"a", "b", "c"}, "fault partition needs one or two member names"},
		{"heal", nil, "fault heal needs one or two member names"},
		{"link", []string{"m1"}, "fault link needs FROM and TO (member names or client)"},
		{"cpulimit", nil, "fault cpulimit needs a member name and optionally its CPUs"},
		{"cpulimit", []string{"m1", "1", "2"}, "fault cpulimit needs a member name and optionally its CPUs"},
		{"cpuunlimit", []string{"m1", "1"}, "fault cpuunlimit needs one member name"},
		{"link", []string{"a", "b", "c"}, "fault link needs FROM and TO (member names or client)"},
		{"upgrade", []string{"3.6.16"}, ""},
		{"upgrade", []string{"embedded"}, ""},
		{"downgrade", []string{"./bin/etcd"}, ""},
		{"upgrade", nil, "fault upgrade needs one etcd (a version such as 3.6.16, a binary's path, or embedded)"},
		{"downgrade", []string{"3.5", "3.6"}, `downgrade takes one etcd (a version such as 3.6.16, a binary's path, or embedded), not "3.5 3.6"`},
		{"upgrade", []string{"latest"}, `upgrade to "latest": give an etcd version (3.6.16), a binary's path, or embedded`},
		// Values are never read as option names.
		{"{Links}", nil, `unknown fault "{Links}": kill, pause, resume, restart, partition, heal, link, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up, alarm-disarm, upgrade or downgrade`},
	} {
		f, err := ParseFault(tc.name, tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: %v", tc.name, tc.args, err)
		case tc.want == "" && f.About().Name != tc.name:
			t.Errorf("%s %v: got fault %s", tc.name, tc.args, f.About().Name)
		case tc.want != "" && err == nil:
			t.Errorf("%s %v: no error, want %q", tc.name, tc.args, tc.want)
		case tc.want != "" && (!invalid.Is(err) || err.Error() != tc.want || invalid.As(err).Text(func(string) string { return "--x" }) != tc.want):
			t.Errorf("%s %v: error %q (invalid %v), want invalid %q", tc.name, tc.args, err, invalid.Is(err), tc.want)
		}
	}
}

// TestRegistry checks the registry is coherent: names unique, every undo
// a registered fault that says what it undoes, socket operations unique.
func TestRegistry(t *testing.T) {
	t.Parallel()
	byName := map[string]About{}
	ops := map[string]bool{}
	for _, f := range Faults() {
		a := f.About()
		if _, dup := byName[a.Name]; dup || a.Name == "" {
			t.Errorf("fault name %q empty or registered twice", a.Name)
		}
		byName[a.Name] = a
		if a.linkOp != "" {
			if ops[a.linkOp] {
				t.Errorf("control socket operation %q applies two faults", a.linkOp)
			}
			ops[a.linkOp] = true
			if g, ok := faultByLinkOp(a.linkOp); !ok || g.About().Name != a.Name {
				t.Errorf("operation %q does not find fault %s", a.linkOp, a.Name)
			}
		}
		// A fault takes a member first, or (compact, alarm-disarm) none.
		if a.MinArgs < 0 || a.MaxArgs < a.MinArgs || a.Args == "" || (a.MinArgs == 0 && a.Undo+a.Undoes != "") {
			t.Errorf("%s takes %d to %d arguments (%q)", a.Name, a.MinArgs, a.MaxArgs, a.Args)
		}
		if (a.Usage == "" && a.MaxArgs > 0) || a.Help == "" || strings.Contains(a.Help, "\n") {
			t.Errorf("%s: usage %q, help %q: a command's help needs both, on one line", a.Name, a.Usage, a.Help)
		}
	}
	for name, a := range byName {
		if a.Undo != "" && byName[a.Undo].Undoes != name {
			t.Errorf("%s is undone by %q, which says it undoes %q", name, a.Undo, byName[a.Undo].Undoes)
		}
		if a.Undoes != "" && byName[a.Undoes].Undo != name {
			t.Errorf("%s undoes %q, whose undo is %q", name, a.Undoes, byName[a.Undoes].Undo)
		}
	}
	// The Counts names are the faults' names.
	for _, n := range []string{FaultKill, FaultPause, FaultResume, FaultRestart, FaultLink, FaultPartition, FaultHeal, FaultCPULimit, FaultCPUUnlimit,
		FaultDefragment, FaultCompact, FaultSnapshot, FaultCatchUp, FaultAlarmDisarm} {
		if _, ok := byName[n]; !ok {
			t.Errorf("Counts name %s is no registered fault", n)
		}
	}
	if got, want := FaultNames(), "kill, pause, resume, restart, partition, heal, link, cpulimit, cpuunlimit, defrag, defrag-stop, defragment, compact, snapshot, catch-up, alarm-disarm, upgrade or downgrade"; got != want {
		t.Errorf("FaultNames() = %q, want %q", got, want)
	}
	if _, ok := faultByLinkOp("bogus"); ok {
		t.Error("unknown operation found a fault")
	}
}

// TestFaultsThroughRegistry injects faults into a real 3-member cluster
// the three ways the registry serves: from "another process" (signals
// and the control socket, as `etcdlab cluster fault` does), in process
// (as experiment timelines do), and times the election after killing the
// leader.
func TestFaultsThroughRegistry(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 3, Tuning: tuning(50, 500)})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	restarted := make(chan struct{}, 1)
	if err := c.ServeControl(ctx, func() { restarted <- struct{}{} }); err != nil {
		t.Fatal(err)
	}
	st := c.State()
	lookup := func(name string) Fault {
		f, err := LookupFault(name)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}

	el, ok, err := st.WatchElection(ctx, 2*time.Second)
	if err != nil || !ok {
		t.Fatalf("WatchElection: ok %v, %v", ok, err)
	}
	defer el.Close()
	old := el.Old()
	el.Start()
	done, err := lookup(FaultKill).Inject(ctx, st, Request{Args: []string{old.Name}})
	if err != nil || !slices.Equal(done, []string{"killed " + old.Name}) {
		t.Fatalf("kill %s: %q, %v", old.Name, done, err)
	}
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
	l, took, err := el.Wait(wctx)
	wcancel()
	if err != nil || l.Name == old.Name || l.Term <= old.Term || took <= 0 {
		t.Fatalf("after killing leader %+v: new leader %+v after %v, %v", old, l, took, err)
	}

	// restart goes through the control socket, and is counted there.
	done, err = lookup(FaultRestart).Inject(ctx, st, Request{Args: []string{old.Name}})
	if err != nil || !slices.Equal(done, []string{"restarted " + old.Name}) {
		t.Fatalf("restart %s: %q, %v", old.Name, done, err)
	}
	<-restarted
	if n := c.Counts().Faults[FaultRestart]; n != 1 {
		t.Errorf("restarts counted: %d, want 1", n)
	}
	// Invalid input crosses the socket as invalid input.
	_, err = lookup(FaultPartition).Inject(ctx, st, Request{Args: []string{"m1"}})
	if !invalid.Is(err) || err.Error() != "the cluster was started without network emulation (Links)" {
		t.Errorf("partition without emulation: %v (invalid %v)", err, invalid.Is(err))
	}
	_, err = lookup(FaultPause).Inject(ctx, st, Request{Args: []string{"m9"}})
	if !invalid.Is(err) || err.Error() != `no member "m9" (members are [m1 m2 m3])` {
		t.Errorf("pause m9: %v (invalid %v)", err, invalid.Is(err))
	}

	// In process, as a timeline applies them: counted by the cluster.
	for _, name := range []string{FaultPause, FaultResume} {
		if err := lookup(name).Apply(c, Request{Args: []string{"m2"}}); err != nil {
			t.Fatalf("%s m2: %v", name, err)
		}
	}
	if got := c.Counts().Faults; got[FaultPause] != 1 || got[FaultResume] != 1 || got[FaultKill] != 0 {
		t.Errorf("counted %v: want pause and resume once, and not the kill signalled from outside", got)
	}
	if err := lookup(FaultLink).Apply(c, Request{Args: []string{"m1", "m2"}}); !invalid.Is(err) {
		t.Errorf("link without emulation: %v, want invalid input", err)
	}
}
