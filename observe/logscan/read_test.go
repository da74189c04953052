package logscan

import (
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/result"
)

// TestReadDir reads a directory of two plain logs and a gzipped one, in
// name order, each under its file's name; a subdirectory and a FIFO in it
// are not read (a FIFO would block).
func TestReadDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 1))
	base := time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC)
	logs := map[string][]event{}
	want := result.LogCensus{}
	var all []event
	for _, name := range []string{"m1", "m2", "etcd-m3"} {
		evs := generate(rng, base, 4, 200)
		logs[name] = evs
		all = append(all, evs...)
		one := expect(name, evs, 0)
		want.Messages = append(want.Messages, one.Messages...)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("m2.log", logOf(logs["m2"], nil))
	write("m1.log", logOf(logs["m1"], nil))
	if err := writeGzip(filepath.Join(dir, "etcd-m3.log.gz"), []byte(logOf(logs["etcd-m3"], nil))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	write("sub/m9.log", logOf(logs["m1"], nil))
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Read(context.Background(), dir, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	total := expect("", all, 0)
	want.Lines, want.Formats, want.FirstUnix, want.LastUnix = total.Lines, total.Formats, total.FirstUnix, total.LastUnix
	want.Sources = []string{filepath.Join(dir, "etcd-m3.log.gz"), filepath.Join(dir, "m1.log"), filepath.Join(dir, "m2.log")}
	sameCensus(t, "dir", got, want)

	// One file of the directory, named by the caller.
	got, err = Read(context.Background(), filepath.Join(dir, "m2.log"), nil, Options{Member: "etcd-2"})
	if err != nil {
		t.Fatal(err)
	}
	want = expect("etcd-2", logs["m2"], 0)
	want.Sources = []string{filepath.Join(dir, "m2.log")}
	sameCensus(t, "file", got, want)
}

// TestReadStdin reads "-" from the stdin given.
func TestReadStdin(t *testing.T) {
	t.Parallel()
	evs := generate(rand.New(rand.NewPCG(22, 1)), time.Date(2024, 5, 2, 10, 0, 0, 0, time.UTC), 2, 100)
	got, err := Read(context.Background(), Stdin, strings.NewReader(logOf(evs, []string{"junk"})), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := expect("stdin", evs, 1)
	want.Sources = []string{"-"}
	sameCensus(t, "stdin", got, want)
}

// TestReadErrors: a path that is missing, or a directory with nothing to
// read, is a one-line *SourceError naming it; a cancelled context stops
// the reading.
func TestReadErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(empty, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope", "m1.log")
	for _, tc := range []struct {
		path string
		is   error
	}{
		{missing, fs.ErrNotExist},
		{empty, errNoFiles},
		{filepath.Join(dir, "m1.log", "x"), fs.ErrNotExist},
		{Stdin, errNoStdin},
	} {
		_, err := Read(context.Background(), tc.path, nil, Options{})
		var se *SourceError
		if !errors.As(err, &se) || se.Path != tc.path || !errors.Is(err, tc.is) {
			t.Errorf("%s: %v, want a SourceError that is %v", tc.path, err, tc.is)
			continue
		}
		if msg := err.Error(); strings.Count(msg, tc.path) != 1 || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q does not name the path once on one line", tc.path, msg)
		}
	}

	if err := os.WriteFile(filepath.Join(dir, "m1.log"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, dir, nil, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestSourceName drops the extensions logs carry.
func TestSourceName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"m2.log":                   "m2",
		"/var/log/etcd-m1.log.gz":  "etcd-m1",
		"etcd.log.1":               "etcd",
		"etcd.log.2.gz":            "etcd",
		"m3":                       "m3",
		"etcd-0.etcd.svc.log":      "etcd-0.etcd.svc",
		"10.0.0.1.json":            "10.0.0.1",
		".log":                     ".log",
		"m1.JSONL":                 "m1",
		"etcd.log-20240502.gz":     "etcd.log-20240502",
		"member-a.journal.txt.out": "member-a.journal",
	} {
		if got := SourceName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
