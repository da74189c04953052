package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// TestDoctorCLI: doctor on a live cluster prints its diagnosis within 120
// columns and exits 0; with a member down it names it and exits 3; JSON
// is the result model; bad input is one line and exit 2.
func TestDoctorCLI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := startCluster(t, cluster.Options{Members: 3})
	eps := strings.Join(c.Client().Endpoints, ",")

	dir := t.TempDir()
	code, out, errs := runCLI(ctx, "doctor", "--endpoints", eps, "--window", "2s", "--keyspace", "--out", dir)
	if code != 0 && code != 3 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Diagnosis (", "Members:", "Step disk:", "Keyspace at revision"} {
		if !strings.Contains(out, want) {
			t.Fatalf("no %q in:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > 120 {
			t.Fatalf("%d columns: %s", n, l)
		}
	}
	for _, f := range []string{"result.json", "report.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", f, err)
		}
	}

	if err := c.Kill("m2"); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(ctx, "doctor", "--endpoints", eps, "--window", "1s", "-o", "json")
	if code != 3 {
		t.Fatalf("a member down: exit %d, want 3", code)
	}
	var doc result.Document
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Doctor == nil || doc.Kind != result.KindDoctor {
		t.Fatalf("json: %v", err)
	}
	if f := doc.Doctor.Findings[0]; f.Cause != "membership" || f.Member != "m2" || f.Status != result.Fail {
		t.Fatalf("top finding %+v", f)
	}

	for _, args := range [][]string{
		{"doctor"},
		{"doctor", "--endpoints", eps, "-o", "xml"},
		{"doctor", "--endpoints", eps, "--metrics-urls", "http://127.0.0.1:1"},
		{"doctor", "--endpoints", eps, "--window", "-1s"},
	} {
		code, _, errs := runCLI(ctx, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
		oneLine(t, errs)
	}

	// No endpoint answers: one error line and exit 1 at once, not a
	// diagnosis of an empty window (an hour long here).
	code, out, errs = runCLI(ctx, "doctor", "--endpoints", "http://127.0.0.1:1,http://127.0.0.1:2", "--window", "1h")
	if code != 1 || out != "" || !strings.Contains(errs, "no endpoint answered") || !strings.Contains(errs, "127.0.0.1:2") {
		t.Errorf("no endpoint answers: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var msgs []string // stderr less doctor's progress lines
	for _, l := range strings.Split(strings.TrimRight(errs, "\n"), "\n") {
		if !strings.HasPrefix(l, "doctor: ") {
			msgs = append(msgs, l)
		}
	}
	oneLine(t, strings.Join(msgs, "\n"))
}

// TestProfileBadInput: profile's bad input is one line and exit 2, before
// anything is dialled (the endpoint here would refuse).
func TestProfileBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ep := "http://127.0.0.1:1"
	for _, args := range [][]string{
		{"profile"},
		{"profile", "--endpoints", ep, "--window", "-1s"},
		{"profile", "--endpoints", ep, "--window", "0s"},
		{"profile", "--endpoints", ep, "--census-max-requests", "0"},
		{"profile", "--endpoints", ep, "--since", "1h"},
		{"profile", "--endpoints", ep, "--until", "2026-11-28T09:00:00Z"},
		{"profile", "--endpoints", ep, "--prometheus", "http://prom:9090", "--until", "yesterday"},
		{"profile", "--endpoints", ep, "--prometheus", "ftp://x"},
		{"profile", "--endpoints", ep, "--prometheus", "http://u:secret@prom:9090", "--prometheus-selector", "job=etcd"},
		{"profile", "--endpoints", ep, "--apiserver-metrics", "not a url"},
		{"profile", "--endpoints", ep, "--metrics-urls", "127.0.0.1:2381"},
		{"profile", "--endpoints", ep, "--apiserver-token-file", "/nonexistent"},
		{"profile", "--endpoints", ep, "-o", "xml"},
	} {
		code, out, errs := runCLI(ctx, args...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing (%s)", args, code, out, errs)
		}
		if strings.Contains(errs, "secret") || strings.Contains(errs, "profile: ") {
			t.Errorf("%v: stderr %q shows a secret or started", args, errs)
		}
		oneLine(t, errs)
	}
}

// TestProfileCLI: profile on a live cluster writes a profile that reads
// back (--out, atomically) and a summary on stderr.
func TestProfileCLI(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := startCluster(t, cluster.Options{Members: 1})
	out := filepath.Join(t.TempDir(), "p.yaml")
	code, stdout, errs := runCLI(ctx, "profile", "--endpoints", strings.Join(c.Client().Endpoints, ","), "--window", "1s", "--out", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, stdout, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "kind: etcdlab-profile") || !strings.Contains(errs, "requests/s") || !strings.Contains(errs, "keys") {
		t.Errorf("profile:\n%s\nstderr:\n%s", b, errs)
	}
}
