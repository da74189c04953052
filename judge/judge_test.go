package judge

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/result"
)

// declaredIDs returns every constant of type ID this package declares, read
// from its source, so that a constant added without a rule fails the test.
func declaredIDs(t *testing.T) map[string]ID {
	t.Helper()
	out := map[string]ID{}
	for name, v := range declared(t, "ID") {
		out[name] = ID(v)
	}
	return out
}

// declared returns every constant of type typ this package declares, by
// name, read from its source.
func declared(t *testing.T, typ string) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				if ident, ok := vs.Type.(*ast.Ident); !ok || ident.Name != typ {
					continue
				}
				for i, n := range vs.Names {
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						t.Fatalf("%s: give %s constants a string literal", n.Name, typ)
					}
					v, _ := strconv.Unquote(lit.Value)
					out[n.Name] = v
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no %s constants", typ)
	}
	return out
}

// TestEveryIDHasARule: every ID constant has a threshold or a rule of its
// own (never both), IDs are unique, and every threshold belongs to a
// constant and has a source, a name, a unit, a limit and advice.
func TestEveryIDHasARule(t *testing.T) {
	t.Parallel()
	ids := declaredIDs(t)
	seen := map[ID]string{}
	for name, id := range ids {
		if other, dup := seen[id]; dup {
			t.Errorf("%s and %s are both %q", name, other, id)
		}
		seen[id] = name
		_, has := Lookup(id)
		switch {
		case ownRule(id) && has:
			t.Errorf("%s has a rule of its own and a threshold", name)
		case !ownRule(id) && !has:
			t.Errorf("%s (%q) has no threshold", name, id)
		}
	}
	for _, th := range All() {
		if _, ok := seen[th.ID]; !ok {
			t.Errorf("threshold %q has no constant", th.ID)
		}
		if th.Source == "" || th.What == "" || th.Unit == "" || th.Advice == "" || (th.Warn <= 0 && th.Fail <= 0) {
			t.Errorf("%s lacks a source, a name, a unit, a limit or advice: %+v", th.ID, th)
		}
	}
	if len(All()) != len(thresholds) {
		t.Error("All must list every threshold")
	}
}

func TestUnknownIDIsSkip(t *testing.T) {
	t.Parallel()
	v := Value(ID("no.such.threshold"), 1, func(float64) string { return "1" })
	if v.Status != result.Skip || v.Explanation == "" {
		t.Fatalf("%+v", v)
	}
	if v := Unmeasured(ServerWALFsyncP99, "no member answered"); v.Status != result.Skip || v.ID != string(ServerWALFsyncP99) || v.Source == "" || !strings.Contains(v.Explanation, "no member answered") {
		t.Fatalf("%+v", v)
	}
}

// TestThresholdBoundaries pins every threshold in the table: just under a
// limit passes, at the limit it does not (etcd's rules are "< limit").
func TestThresholdBoundaries(t *testing.T) {
	t.Parallel()
	d := func(float64) string { return "x" }
	for _, th := range All() {
		id := th.ID
		if th.Warn > 0 {
			if got := Value(id, th.Warn*0.999, d).Status; got != result.Pass {
				t.Errorf("%s just under warn %g: %s", id, th.Warn, got)
			}
			if got := Value(id, th.Warn, d).Status; got != result.Warn {
				t.Errorf("%s at warn %g: %s", id, th.Warn, got)
			}
		}
		if th.Fail > 0 {
			under := th.Fail * 0.999
			want := result.Pass
			if th.Warn > 0 && under >= th.Warn {
				want = result.Warn
			}
			if got := Value(id, under, d).Status; got != want {
				t.Errorf("%s just under fail %g: %s, want %s", id, th.Fail, got, want)
			}
			if got := Value(id, th.Fail, d).Status; got != result.Fail {
				t.Errorf("%s at fail %g: %s", id, th.Fail, got)
			}
		}
	}
	// The pinned values themselves, so that a changed table is a conscious change.
	for id, want := range map[ID][2]float64{
		DiskFsyncP99: {0, 0.010}, DiskFsyncP999: {0.0085, 0}, ServerWALFsyncP99: {0, 0.010},
		ServerBackendCommitP99: {0, 0.025}, ServerPeerRTTP99: {0.040, 0.050}, NetworkConnect: {0.002, 0.008},
		ServerLeaderChanges: {1, 4}, ServerSlowApplies: {1, 0}, ServerProposalsFailed: {1, 0}, ServerHeartbeatFailures: {1, 0},
	} {
		th, _ := Lookup(id)
		if th.Warn != want[0] || th.Fail != want[1] {
			t.Errorf("%s: warn %g fail %g, want %v", id, th.Warn, th.Fail, want)
		}
	}
}

func TestIOPSTier(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		iops float64
		want string
		tier string
	}{
		{10, result.Fail, "unusable"}, {49.9, result.Fail, "unusable"}, {50, result.Warn, "development"},
		{299, result.Warn, "development"}, {300, result.Pass, "small/medium"}, {500, result.Pass, "medium/large"},
		{799, result.Pass, "medium/large"}, {800, result.Pass, "800+"},
	} {
		if got := IOPSTier(tt.iops); got.Status != tt.want || !strings.Contains(got.Threshold, tt.tier) || got.ID != string(DiskFsyncIOPS) {
			t.Errorf("IOPS %g: %s %q", tt.iops, got.Status, got.Threshold)
		}
	}
}

// TestLimits holds the limits table complete: every row has a number, a
// unit, what it limits and its source, and the numbers messages quote
// render as before.
func TestLimits(t *testing.T) {
	t.Parallel()
	consts := map[LimitID]bool{}
	for name, v := range declared(t, "LimitID") {
		consts[LimitID(v)] = true
		if _, ok := limits[LimitID(v)]; !ok {
			t.Errorf("%s (%q) has no row", name, v)
		}
	}
	for _, l := range Limits() {
		if !consts[l.ID] {
			t.Errorf("row %q has no constant", l.ID)
		}
		if l.Value <= 0 || l.Unit == "" || l.What == "" || l.Source == "" {
			t.Errorf("incomplete limit %+v", l)
		}
	}
	for id, want := range map[LimitID]string{LimitWALFsyncP99: "10 ms", LimitBackendCommitP99: "25 ms", LimitQuotaWarn: "80%", LimitQuotaFail: "95%",
		LimitGRPCErrorsFail: "5%", LimitGRPCErrorsWarn: "1%", LimitCheckRateShare: "90%", LimitIOPSUsable: "50", LimitStall: "50 ms"} {
		if got := id.Text(); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if v := LimitID("no.such.limit").Value(); v != 0 {
		t.Errorf("an unknown limit is %v, want 0", v)
	}
}
