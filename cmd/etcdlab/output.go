package main

import (
	"errors"
	"io/fs"

	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/render"
)

// outputFormat returns -o's value for a command that writes subject (a
// result kind, render.SubjectComparison or render.SubjectStatus), checked
// against render's one list of formats: a usage error names the formats
// the command takes.
func outputFormat(subject, value string) (render.Format, error) {
	f, err := render.ParseFormat(subject, value)
	if err != nil {
		return "", exitcode.Usagef("-o %w", err)
	}
	return f, nil
}

// outError is the message for a result file that could not be written
// into the --out directory out: the file for a write that failed, the
// directory when the file (or the directory) could not be created.
func outError(out string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == atomicfile.OpWrite {
		return exitcode.Failuref("%w", err)
	}
	return exitcode.Failuref("--out %s: %w", out, err)
}
