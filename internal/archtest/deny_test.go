package archtest

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// denied are imports a package must not have directly, though its row
// allows the folder (lab/*) or the rows say nothing of them (modules
// outside etcdlab). Patterns are import paths; one ending in "/..." names
// a path and everything under it.
func denied() map[string][]string {
	return map[string][]string{
		// bench is the lifecycle over its engines: the real control
		// plane's (Kubernetes' API types, lab/kubecp, a Prometheus text
		// parser of its own beside observe/metrics) is measure/kubereal.
		"measure/bench": {module + "lab/kubecp", "k8s.io/api/...", "github.com/prometheus/common/expfmt"},
	}
}

func deniedMatch(pattern, imp string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return imp == dir || strings.HasPrefix(imp, dir+"/")
	}
	return imp == pattern
}

// checkDenied returns one line per denied import; imports maps a package
// (module-relative) to every import path it imports.
func checkDenied(imports map[string][]string) []string {
	var bad []string
	for pkg, patterns := range denied() {
		for _, imp := range imports[pkg] {
			for _, p := range patterns {
				if deniedMatch(p, imp) {
					bad = append(bad, pkg+" imports "+imp+" (denied: "+p+")")
				}
			}
		}
	}
	return bad
}

// TestDeniedImports fails when a package imports what denied() forbids it.
func TestDeniedImports(t *testing.T) {
	t.Parallel()
	var pkgs []string
	for pkg := range denied() {
		pkgs = append(pkgs, "./"+pkg)
	}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, pkgs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		imports[strings.TrimPrefix(fields[0], module)] = fields[1:]
	}
	if len(imports) != len(pkgs) {
		t.Fatalf("go list listed %d of %d packages", len(imports), len(pkgs))
	}
	for _, line := range checkDenied(imports) {
		t.Error(line)
	}
}

// TestDeniedCatch shows the denied imports are caught.
func TestDeniedCatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		imp string
		ok  bool
	}{
		{module + "lab/kubecp", false},
		{"k8s.io/api/core/v1", false},
		{"github.com/prometheus/common/expfmt", false},
		{module + "lab/kubebuild", true},
		{"k8s.io/apimachinery/pkg/apis/meta/v1", true},
		{module + "observe/metrics", true},
	} {
		bad := checkDenied(map[string][]string{"measure/bench": {tc.imp}})
		if got := len(bad) == 0; got != tc.ok {
			t.Errorf("measure/bench -> %s: allowed=%v, want %v (%v)", tc.imp, got, tc.ok, bad)
		}
	}
}
