package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed, fatal bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.fatal = true; r.failed = true }
func (r *recorder) Fatal(...any)          { r.fatal = true; r.failed = true }
func (r *recorder) Name() string          { return "TestX" }

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.golden")
	r := &recorder{TB: t}
	Check(r, path, []byte("x"), false)
	if !r.fatal {
		t.Error("a missing golden file passed")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("x\n"), true)
	if r.failed {
		t.Error("-update did not write the file it then compares")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("y\n"), false)
	if !r.failed || r.fatal {
		t.Error("a difference passed, or stopped the test")
	}
	if b, _ := os.ReadFile(path); string(b) != "x\n" {
		t.Errorf("the golden file was rewritten without -update: %q", b)
	}
}

func TestCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, f := range []string{"a.json", "a.options.json", "b.json", "c.golden"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := Cases(t, dir, ".options.json")
	if len(got) != 2 || Name(got[0]) != "a" || Name(got[1]) != "b" || Beside(got[0]) != filepath.Join(dir, "a.golden") {
		t.Errorf("cases %v", got)
	}
	r := &recorder{TB: t}
	Cases(r, t.TempDir())
	if !r.fatal {
		t.Error("an empty folder of cases passed")
	}
}
