package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayBadProfileDialsNothing: bench replay of a file that is not a
// profile, of a newer version, with a rate of zero or below or an unknown
// operation, or with a bad --speed or --scale, is one line on stderr with
// exit 2, before anything is dialled or written.
func TestReplayBadProfileDialsNothing(t *testing.T) {
	rec := newRecorder(t)
	ep := rec.ln.Addr().String()
	dir := t.TempDir()
	good := "kind: etcdlab-profile\nversion: 1\nsource: {taken: x, sources: [hand]}\noperations:\n  - {op: put, prefix: /p/, rate: 10, valueBytes: 100}\ntotals: {requestsPerSecond: 10}\n"
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodFile := file("good.yaml", good)
	for _, tt := range []struct {
		args     []string
		contains string
	}{
		{[]string{"replay", file("bench.json", `{"kind":"bench","version":3}`)}, `not a profile: kind "bench"`},
		{[]string{"replay", file("future.yaml", strings.Replace(good, "version: 1", "version: 9", 1))}, "profile version 9 is newer than this etcdlab reads"},
		{[]string{"replay", file("zero.yaml", strings.Replace(good, "rate: 10,", "rate: 0,", 1))}, "rate must be positive, not 0"},
		{[]string{"replay", file("negative.yaml", strings.Replace(good, "rate: 10,", "rate: -5,", 1))}, "rate must be positive, not -5"},
		{[]string{"replay", file("unknown.yaml", strings.Replace(good, "op: put", "op: snapshot", 1))}, `unknown operation "snapshot"`},
		{[]string{"replay", filepath.Join(dir, "missing.yaml")}, "no such file"},
		{[]string{"replay", goodFile, "--speed", "0"}, "--speed must be positive"},
		{[]string{"replay", goodFile, "--scale", "-1"}, "--scale must be positive"},
		{[]string{"replay", goodFile, "--rate", "10"}, "unknown flag: --rate"},
		{[]string{"replay"}, "got 0 arguments; usage: etcdlab bench replay PROFILE"},
		{[]string{"replay", goodFile, goodFile}, "got 2 arguments"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			work := t.TempDir()
			t.Chdir(work)
			before := rec.accepted.Load()
			args := append([]string{"bench", "--endpoints", ep}, tt.args...)
			code, stdout, stderr := runCLI(context.Background(), args...)
			if code != 2 || !strings.Contains(stderr, tt.contains) {
				t.Fatalf("exit %d, stderr %q; want exit 2 containing %q", code, stderr, tt.contains)
			}
			oneLine(t, stderr)
			if stdout != "" {
				t.Errorf("stdout %q; want nothing", stdout)
			}
			if n := rec.accepted.Load() - before; n != 0 {
				t.Errorf("dialled the endpoint %d times before failing", n)
			}
			if files, err := os.ReadDir(work); err != nil || len(files) != 0 {
				t.Errorf("wrote %v (%v) before failing", files, err)
			}
		})
	}
}
