package experiment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/etcdlab/etcdlab/internal/atomicfile"

	"github.com/etcdlab/etcdlab/result"
)

// ResultFile is the name of an experiment's result in its directory.
const ResultFile = "result.json"

// SaveError is why Save could not write a result: nothing could be
// created in the directory (File empty), or the file could not be written
// (Err names the operation and the file).
type SaveError struct {
	Dir  string
	File string
	Err  error
}

func (e *SaveError) Error() string {
	if e.File != "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%s: %v", e.Dir, e.Err)
}

// Unwrap returns the underlying error.
func (e *SaveError) Unwrap() error { return e.Err }

// Save writes doc as dir's result.json atomically (internal/atomicfile): a
// kill leaves the previous version or the new one, never half of one.
// Errors are *SaveError. It may be called from any goroutine, one call per
// dir at a time.
func Save(dir string, doc *result.Document) error {
	file := filepath.Join(dir, ResultFile)
	err := atomicfile.Write(file, 0o644, func(w io.Writer) error { return result.Write(w, doc) })
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == atomicfile.OpWrite {
		return &SaveError{Dir: dir, File: file, Err: err}
	}
	return &SaveError{Dir: dir, Err: err}
}

// SaveIn is an Options.Save that saves each version of the result in dir
// (Save), so that a killed run can be resumed from there (ReadResume).
func SaveIn(dir string) func(*result.Document) error {
	return func(doc *result.Document) error { return Save(dir, doc) }
}
