package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
)

// outputCommands are the commands whose -o is a format, and what they
// write (render.Formats' subject).
var outputCommands = []struct {
	args    []string
	subject string
}{
	{[]string{"bench", "put"}, result.KindBench},
	{[]string{"merge", "agents.json"}, result.KindBench},
	{[]string{"check"}, result.KindCheck},
	{[]string{"doctor", "--endpoints", "127.0.0.1:1"}, result.KindDoctor},
	{[]string{"disk"}, result.KindDisk},
	{[]string{"experiment", "run", "storage-sweep"}, result.KindExperiment},
	{[]string{"cluster", "status"}, render.SubjectStatus},
	{[]string{"compare", "a.json", "b.json"}, render.SubjectComparison},
}

// Every command refuses a format it does not take, first and with the
// registry's one message, and its -o help names every format it takes.
func TestOutputFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range outputCommands {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string{}, tc.args...), "-o", "xml")
			if tc.args[0] == "bench" {
				args = []string{"bench", "-o", "xml", "put"}
			}
			code, stdout, stderr := runCLI(context.Background(), args...)
			_, perr := render.ParseFormat(tc.subject, "xml")
			if want := "etcdlab: -o " + perr.Error() + "\n"; code != 2 || stderr != want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, stdout, stderr, want)
			}
			c, _, err := (&app{}).rootCmd().Find(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			fl := c.Flags().Lookup("output")
			if fl == nil {
				fl = c.InheritedFlags().Lookup("output")
			}
			if fl == nil {
				if fl = c.Flag("output"); fl == nil {
					t.Fatal("no -o flag")
				}
			}
			formats := render.Formats(tc.subject)
			if fl.DefValue != string(formats[0]) {
				t.Errorf("-o defaults to %s, the registry's default is %s", fl.DefValue, formats[0])
			}
			for _, f := range formats {
				if !strings.Contains(fl.Usage, string(f)) {
					t.Errorf("-o's help %q does not name %s", fl.Usage, f)
				}
			}
		})
	}
}

// Result files (check and doctor --out) are written whole, leave nothing
// else in the directory, and keep the messages os.MkdirAll and os.Create
// gave when the directory cannot hold them.
func TestResultFilesOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := &result.Document{SchemaVersion: 1, Kind: result.KindBench, Runs: []result.Run{{Name: "put", Conns: 1, Clients: 1,
		Stats: result.Stats{Requests: 10, ThroughputRPS: 100, Latency: result.Latency{P50: 0.001, P99: 0.002, Mean: 0.001}}}}}
	var stderr bytes.Buffer
	a := &app{stdout: io.Discard, stderr: &stderr}
	out := filepath.Join(dir, "run")
	if err := a.writeResultFiles(doc, out, "check"); err != nil {
		t.Fatal(err)
	}
	if got, err := result.ReadFile(filepath.Join(out, "result.json")); err != nil || got.Runs[0].Stats.Requests != 10 {
		t.Errorf("result.json: %v", err)
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 2 || ents[0].Name() != "report.html" || ents[1].Name() != "result.json" {
		t.Errorf("--out holds %v, want report.html and result.json", ents)
	}
	if want := "wrote " + filepath.Join(out, "result.json") + " and " + filepath.Join(out, "report.html") + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}

	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	busy := filepath.Join(dir, "busy")
	if err := os.MkdirAll(filepath.Join(busy, "result.json", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		filepath.Join(file, "sub"): "--out " + filepath.Join(file, "sub") + ": mkdir " + file + ": not a directory",
		busy:                       "--out " + busy + ": open " + filepath.Join(busy, "result.json") + ": is a directory",
	} {
		err := a.writeResultFiles(doc, out, "check")
		if err == nil || err.Error() != want || exitcode.Code(err) != exitcode.Failure {
			t.Errorf("--out %s: %v, want %q (exit 1)", out, err, want)
		}
	}
	if ents, _ := os.ReadDir(busy); len(ents) != 1 {
		t.Errorf("a failed write left %v in --out", ents)
	}
}
