package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	goldenfile "github.com/etcdlab/etcdlab/internal/golden"

	"github.com/etcdlab/etcdlab/lab/buildcache"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden checks got against testdata/experiment/name (-update rewrites it).
func golden(t *testing.T, name string, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", "experiment", name), []byte(got), *update)
}

// TestExperimentFileErrors: a bad experiment file is one line naming the
// file and the line, exit 2, and nothing runs.
func TestExperimentFileErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "name: x\nsetups:\n  - {name: a, members: 1}\nworkloads:\n  - name: put\n    bench: put --total=10\n"
	for _, tt := range []struct{ name, text, want string }{
		{"unknown field", good + "iteratons: 3\n", `bad.yaml line 7: unknown field "iteratons"`},
		{"bad duration", good + "faults:\n  - {at: 5 seconds, kill: leader}\n", `bad.yaml line 8: "5 seconds" is not a duration (write 10s, 500ms or 1m30s)`},
		{"unknown preset", strings.Replace(good, "members: 1", "topology: multicloud-7", 1), `bad.yaml line 3: setups[0].topology: no preset or file "multicloud-7" (presets: `},
		{"bad bench line", strings.Replace(good, "put --total=10", "put --clients=0", 1), "bad.yaml line 6: workloads[0].bench: cell a/put (profile full): --clients must be at least 1, not 0"},
	} {
		file := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(file, []byte(tt.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(context.Background(), "experiment", "run", file, "--out", filepath.Join(dir, "out"))
		if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q, want 2 and %q", tt.name, code, stderr, tt.want)
		}
		oneLine(t, stderr)
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("%s: --out was made for a file that cannot run", tt.name)
		}
	}
	code, _, stderr := runCLI(context.Background(), "experiment", "run", "storage-swep")
	if code != 2 || !strings.Contains(stderr, `no built-in experiment or file "storage-swep" (built-ins: disk-qualification, distance-sweep, hdd-diagnosis, incidents, leader-vs-all, maintenance, multicloud, replay, sizing, storage-sweep, upgrade, versions)`) {
		t.Errorf("unknown name: %d %q", code, stderr)
	}
	code, _, stderr = runCLI(context.Background(), "experiment", "run", "multicloud", "--profile", "slow")
	if code != 2 || !strings.Contains(stderr, `no profile "slow" (profiles: full, quick)`) {
		t.Errorf("unknown profile: %d %q", code, stderr)
	}
}

// TestExperimentDryRun: --dry-run prints the plan and runs nothing
// (golden files: a file using every feature, under both profiles, and
// built-ins: storage-sweep's, and the two that cross setups, distance and
// disk, etcd and budget). An estimate counts the builds of etcd versions
// the build cache lacks, so the test runs against an empty cache of its
// own: the plans read the same on every machine (not parallel: Setenv).
func TestExperimentDryRun(t *testing.T) {
	t.Setenv(buildcache.EnvDir, t.TempDir())
	for _, tt := range []struct {
		args   []string
		golden string
	}{
		{[]string{filepath.Join("testdata", "experiment", "plan.yaml")}, "plan.full.golden"},
		{[]string{filepath.Join("testdata", "experiment", "plan.yaml"), "--quick"}, "plan.quick.golden"},
		{[]string{"storage-sweep", "--quick"}, "storage-sweep.quick.golden"},
		{[]string{"distance-sweep", "--quick"}, "distance-sweep.quick.golden"},
		{[]string{"leader-vs-all", "--quick"}, "leader-vs-all.quick.golden"},
		{[]string{"sizing"}, "sizing.full.golden"},
		{[]string{"sizing", "--quick"}, "sizing.quick.golden"},
	} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI(context.Background(), append(append([]string{"experiment", "run"}, tt.args...), "--dry-run", "--out", dir+"/out")...)
		if code != 0 || stderr != "" {
			t.Fatalf("%v: exit %d: %s", tt.args, code, stderr)
		}
		golden(t, tt.golden, stdout)
		if _, err := os.Stat(dir + "/out"); err == nil {
			t.Errorf("%v: --dry-run wrote --out", tt.args)
		}
	}
}

// TestExperimentList lists the five built-ins with their sources and
// estimates.
func TestExperimentList(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(context.Background(), "experiment", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"NAME", "QUICK", "FULL", "multicloud", "disk-qualification", "leader-vs-all", "hdd-diagnosis", "storage-sweep",
		"field report 000", "field report 004", "sizing", "issue 35"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, stdout)
		}
	}
}

// TestExperimentRunWithFailingCell runs a file whose first setup cannot
// start (its port is taken) and whose second can, through the CLI: the
// failed cell is recorded with its reason, the other runs, the exit code
// is 1 and names the cell, and result.json, summary.txt and report.html
// are written.
func TestExperimentRunWithFailingCell(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "e.yaml")
	text := fmt.Sprintf("name: e\nsetups:\n  - {name: taken, members: 1, port_base: %d}\n  - {name: fine, members: 1}\nworkloads:\n  - name: put\n    bench: --clients={c} put --total=200\nsweep:\n  c: [1, 2]\n",
		ln.Addr().(*net.TCPAddr).Port)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(context.Background(), "experiment", "run", file, "--out", out, "--data-dir", dir)
	if code != 1 || !strings.Contains(stderr, "2 cells failed: taken/put/c=1, taken/put/c=2") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"| taken/put/c=1 | failed |", "start the cluster", "| fine/put/c=2  | ok     |"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	doc, err := result.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]string{}
	for _, c := range doc.Experiment.Cells {
		st[c.ID] = c.Status
	}
	if st["taken/put/c=1"] != result.CellFailed || st["fine/put/c=1"] != result.CellOK || st["fine/put/c=2"] != result.CellOK {
		t.Errorf("cells: %v", st)
	}
	if b, err := os.ReadFile(filepath.Join(out, "summary.txt")); err != nil || string(b) != stdout {
		t.Errorf("summary.txt differs from stdout (%v)", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(b), "fine/put/c=2") {
		t.Errorf("report.html: %v, or it lacks the cells", err)
	}
}

// TestExperimentCtrlCAndResume runs `etcdlab experiment run` as a process,
// sends it SIGINT during its second cell, and checks the partial result;
// then `--resume` completes it and nothing is left behind.
func TestExperimentCtrlCAndResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "e.yaml")
	text := "name: e\nsetups:\n  - {name: one, members: 1}\nworkloads:\n  - name: put\n    bench: --clients={c} --duration=4s put\nsweep:\n  c: [1, 2, 3]\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "experiment", "run", "e.yaml", "--out", "out")
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	// Wait until the first cell is saved as done, then interrupt.
	if !clustertest.Eventually(60*time.Second, func() bool {
		doc, err := result.ReadFile(filepath.Join(dir, "out", "result.json"))
		return err == nil && doc.Experiment.Cells[0].Status == result.CellOK
	}) {
		t.Fatalf("the first cell did not finish: %s", stderr.String())
	}
	// Into the second cell's 4 s run (its cluster starts first); nothing
	// outside the process says when that run begins.
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted: 2 cells left to run") {
			t.Fatalf("after Ctrl-C: %v\n%s", err, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30 s after Ctrl-C")
	}
	doc, err := result.ReadFile(filepath.Join(dir, "out", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, c := range doc.Experiment.Cells {
		states = append(states, c.Status)
	}
	if doc.Experiment.Partial != "interrupted" || strings.Join(states, " ") != "ok interrupted pending" {
		t.Fatalf("partial %q, cells %v", doc.Experiment.Partial, states)
	}
	code, out := cli(t, dir, "experiment", "run", "--resume", "out", "-o", "json")
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, out)
	}
	final, err := result.ReadFile(filepath.Join(dir, "out", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range final.Experiment.Cells {
		if c.Status != result.CellOK {
			t.Errorf("after resume %s: %s %q", c.ID, c.Status, c.Error)
		}
	}
	if !final.Experiment.Cells[0].Start.Equal(doc.Experiment.Cells[0].Start) {
		t.Error("resume ran the finished cell again")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, ".etcdlab")); len(ents) > 0 {
		t.Errorf("left in .etcdlab: %v", ents)
	}
	var raw map[string]any
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&raw); err != nil || raw["kind"] != "experiment" {
		t.Errorf("-o json: %v %v", err, raw["kind"])
	}
}

// TestExperimentSweepOverride: --sweep NAME=V1,V2 replaces a swept
// parameter's values in the file and its profiles; a name the file does
// not sweep, or no value, is a one-line error (exit 2) and nothing runs.
func TestExperimentSweepOverride(t *testing.T) {
	t.Setenv(buildcache.EnvDir, t.TempDir())
	file := filepath.Join("testdata", "experiment", "plan.yaml")
	for _, quick := range []bool{false, true} {
		args := []string{"experiment", "run", file, "--dry-run", "--sweep", "clients=7,9"}
		if quick {
			args = append(args, "--quick")
		}
		code, stdout, stderr := runCLI(context.Background(), args...)
		if code != 0 {
			t.Fatalf("quick=%v: exit %d: %s", quick, code, stderr)
		}
		if !strings.Contains(stdout, "--clients=7") || !strings.Contains(stdout, "--clients=9") || strings.Contains(stdout, "--clients=100") || strings.Contains(stdout, "--clients=10 ") {
			t.Errorf("quick=%v: the plan does not run clients 7 and 9 only:\n%s", quick, stdout)
		}
	}
	for _, tt := range []struct{ arg, want string }{
		{"nosuch=1", `sweeps no "nosuch" (it sweeps clients, val)`},
		{"clients=", "give one value or more"},
		{"clients", "write NAME=V1,V2"},
	} {
		code, _, stderr := runCLI(context.Background(), "experiment", "run", file, "--dry-run", "--sweep", tt.arg)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("--sweep %s: exit %d, stderr %q; want exit 2 and one line with %q", tt.arg, code, stderr, tt.want)
		}
	}
}
