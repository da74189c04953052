package experiment

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdlab/etcdlab/result"
)

// ResultFile is the name of an experiment's result in its directory.
const ResultFile = "result.json"

// SaveError is why Save could not write a result: nothing could be
// created in the directory (File empty), or the file could not be written.
type SaveError struct {
	Dir  string
	File string
	Err  error
}

func (e *SaveError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("write %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Dir, e.Err)
}

// Unwrap returns the underlying error.
func (e *SaveError) Unwrap() error { return e.Err }

// Save writes doc as dir's result.json atomically: a kill leaves the
// previous version or the new one, never half of one. Errors are
// *SaveError. It may be called from any goroutine, one call per dir at a
// time.
func Save(dir string, doc *result.Document) error {
	tmp, err := os.CreateTemp(dir, ".result-*.json")
	if err != nil {
		return &SaveError{Dir: dir, Err: err}
	}
	err = result.Write(tmp, doc)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	file := filepath.Join(dir, ResultFile)
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return &SaveError{Dir: dir, File: file, Err: err}
	}
	return nil
}

// SaveIn is an Options.Save that saves each version of the result in dir
// (Save), so that a killed run can be resumed from there (ReadResume).
func SaveIn(dir string) func(*result.Document) error {
	return func(doc *result.Document) error { return Save(dir, doc) }
}
