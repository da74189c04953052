package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/result"
)

// TestSaveAndReadResume saves a plan's result where a run would, reads it
// back from the directory and from the file, and finds the experiment it
// ran; what cannot be resumed is invalid input naming {Resume}.
func TestSaveAndReadResume(t *testing.T) {
	t.Parallel()
	p := plan(t, `name: saved
setups:
  - {name: one, members: 1}
workloads:
  - name: put
    bench: put --total=10
`)
	dir := t.TempDir()
	doc := NewDocument(p)
	if err := SaveIn(dir)(doc); err != nil {
		t.Fatal(err)
	}
	if err := Save(dir, doc); err != nil { // replacing it
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != ResultFile {
		t.Errorf("dir holds %v, want only %s (no temporary file left)", entries, ResultFile)
	}
	for _, path := range []string{dir, filepath.Join(dir, ResultFile)} {
		old, err := ReadResume(path)
		if err != nil {
			t.Fatalf("ReadResume(%s): %v", path, err)
		}
		if ResumeDir(path) != dir {
			t.Errorf("ResumeDir(%s) = %s, want %s", path, ResumeDir(path), dir)
		}
		s, err := resumeSpec(old)
		if err != nil || s.Name != "saved" || string(s.Text()) != string(p.Spec.Text()) {
			t.Errorf("ResumeSpec: %v, %v", s, err)
		}
	}

	bench := filepath.Join(dir, "bench.json")
	f, err := os.Create(bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := result.Write(f, &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindBench, Runs: []result.Run{}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "missing"), "--resume: open " + filepath.Join(dir, "missing") + ": no such file or directory"},
		{t.TempDir(), "--resume: open "},
		{bench, "--resume: " + bench + " is a bench result, not an experiment's"},
	} {
		_, err := ReadResume(tc.path)
		inv := invalid.As(err)
		if inv == nil || !strings.HasPrefix(inv.Text(func(f string) string { return "--" + strings.ToLower(f) }), tc.want) {
			t.Errorf("ReadResume(%s): %v, want invalid input %q", tc.path, err, tc.want)
		}
	}

	var se *SaveError
	err = Save(filepath.Join(dir, "missing"), doc)
	if !errors.As(err, &se) || se.File != "" || se.Dir != filepath.Join(dir, "missing") {
		t.Errorf("Save in a missing directory: %v", err)
	}
}
