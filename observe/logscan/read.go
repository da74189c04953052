package logscan

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/etcdlab/etcdlab/result"
	"golang.org/x/term"
)

// Stdin is the path that means standard input.
const Stdin = "-"

// SourceError is a log source that could not be read. Its Error is one
// line naming the path.
type SourceError struct {
	Path string
	Err  error
}

func (e *SourceError) Error() string { return "logs " + e.Path + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *SourceError) Unwrap() error { return e.Err }

// errNoFiles is a directory with no regular file in it.
var errNoFiles = errors.New("no regular files in the directory")

// errNoStdin is "-" read without a standard input.
var errNoStdin = errors.New("no standard input to read")

// errTerminal is standard input left on a terminal.
var errTerminal = errors.New("standard input is a terminal; pipe the logs in")

// Read counts the known messages in etcd members' logs at path: a file,
// a directory (every regular file in it, not in its subdirectories, in
// name order), or "-" for stdin. Each source is one member's log (see the
// package documentation for how it is named); gzip sources are
// decompressed. A path that does not exist or cannot be read is a
// *SourceError naming it, as is a terminal on stdin; a source in no known
// format is not an error (see Scan). ctx is checked between sources and
// every few thousand lines; a read that blocks (a pipe whose writer never
// closes) returns only when it does. Read holds nothing afterwards and is
// safe for concurrent use.
func Read(ctx context.Context, path string, stdin io.Reader, o Options) (result.LogCensus, error) {
	t := newTally()
	if path == Stdin {
		if stdin == nil {
			return t.result(), &SourceError{Path: path, Err: errNoStdin}
		}
		if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return t.result(), &SourceError{Path: path, Err: errTerminal}
		}
		t.census.Sources = append(t.census.Sources, Stdin)
		if err := t.scan(ctx, stdin, "", o); err != nil {
			return t.result(), &SourceError{Path: path, Err: err}
		}
		return t.result(), nil
	}
	files, err := sources(path)
	if err != nil {
		return t.result(), err
	}
	for _, name := range files {
		if err := ctx.Err(); err != nil {
			return t.result(), err
		}
		if err := t.readFile(ctx, name, o); err != nil {
			return t.result(), err
		}
	}
	return t.result(), nil
}

// readFile adds one file to the census.
func (t *tally) readFile(ctx context.Context, path string, o Options) error {
	f, err := os.Open(path)
	if err != nil {
		return &SourceError{Path: path, Err: cause(err)}
	}
	defer f.Close()
	t.census.Sources = append(t.census.Sources, path)
	if err := t.scan(ctx, f, SourceName(path), o); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return &SourceError{Path: path, Err: cause(err)}
	}
	return nil
}

// sources lists the files at path: path itself, or a directory's regular
// files in name order.
func sources(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, &SourceError{Path: path, Err: cause(err)}
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path) // sorted by name
	if err != nil {
		return nil, &SourceError{Path: path, Err: cause(err)}
	}
	var files []string
	for _, e := range entries {
		name := filepath.Join(path, e.Name())
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			files = append(files, name)
		}
	}
	if len(files) == 0 {
		return nil, &SourceError{Path: path, Err: errNoFiles}
	}
	return files, nil
}

// cause drops the path an *fs.PathError repeats.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// SourceName is the member name a log file gives: its base name without
// the extensions logs carry (.gz, .log, .txt, .json, .jsonl, .out, and a
// rotation number after one of them, as in .log.1): "etcd-m1.log.gz" →
// "etcd-m1".
func SourceName(path string) string {
	base := filepath.Base(path)
	name := base
	for {
		ext := filepath.Ext(name)
		rest := strings.TrimSuffix(name, ext)
		numbered := isDigits(strings.TrimPrefix(ext, ".")) && logExt(filepath.Ext(rest))
		if ext == name || !logExt(ext) && !numbered {
			break
		}
		name = rest
	}
	if name == "" {
		return base
	}
	return name
}

// logExt reports whether ext is an extension log files carry.
func logExt(ext string) bool {
	switch strings.ToLower(ext) {
	case ".gz", ".log", ".txt", ".json", ".jsonl", ".out":
		return true
	}
	return false
}

// isDigits reports whether s is a non-empty string of decimal digits.
func isDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
