// Package golden holds tests' golden files: output that is the product
// (a report's text, a judge's statements) compared byte for byte with a
// reviewed file in testdata, and rewritten by -update. Only tests import
// it; it keeps no state and is safe for concurrent use.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Check compares got with the golden file at path, after writing got
// there when update is set (the package's -update flag). A difference
// fails t with got in full and how to rewrite the file.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil { //nolint:gosec // a test's golden file, reviewed in the diff
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it, then review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (rerun %s with -update and review the diff):\n%s", path, t.Name(), got)
	}
}

// Cases lists the recorded cases in dir: its *.json files but those
// whose names end in one of skip (a case's side files, such as
// ".options.json"), by name. No case is a failure: a folder of cases
// that is found empty tests nothing.
func Cases(t testing.TB, dir string, skip ...string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	paths = slices.DeleteFunc(paths, func(p string) bool {
		return slices.ContainsFunc(skip, func(s string) bool { return strings.HasSuffix(p, s) })
	})
	if len(paths) == 0 {
		t.Fatalf("no case in %s", dir)
	}
	return paths
}

// Beside is the golden file of case path: NAME.json's NAME.golden.
func Beside(path string) string { return strings.TrimSuffix(path, ".json") + ".golden" }

// Name is case path's name, for t.Run.
func Name(path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") }
