// Package atomicfile writes result files whole or not at all: whoever
// reads a file, including a run started after a kill -9 or a power cut,
// finds the previous version or the new one, never a part of one, and a
// write that fails leaves no temporary file behind.
//
// A file is written into a new temporary file beside it (same directory,
// so the rename stays on one file system), synced, renamed over the
// file, and the directory is synced so that the rename itself survives a
// crash. A result directory (result.json with the files drawn from it)
// is written file by file, the document first, each file atomically; see
// WriteDir for why not as a temporary directory renamed into place.
//
// It holds no state: concurrent calls for different paths are
// independent; for the same path the last rename wins, whole.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Ops of the *fs.PathError that Write returns: OpCreate when the file
// could not be created or put in place (its message is os.Create's for
// the same cause: "open PATH: is a directory"), OpWrite when filling or
// syncing it failed.
const (
	OpCreate = "open"
	OpWrite  = "write"
)

// Write writes path with what fill writes to w, atomically (see the
// package comment). The file gets perm less the umask, as with
// os.WriteFile; a file already at path is replaced (its mode is not kept).
// fill's writes are buffered; fill must not keep w.
//
// Errors are *fs.PathError naming path: Op is OpCreate when the
// temporary file could not be created (the directory is missing or not
// writable) or renamed over path (a directory is there), OpWrite when
// fill failed (its error is Err) or the file could not be synced. Either
// way path is untouched.
func Write(path string, perm fs.FileMode, fill func(w io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := create(dir, filepath.Base(path), perm)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &fs.PathError{Op: OpCreate, Path: path, Err: err}
	}
	if err := fillSync(tmp, fill); err != nil {
		_ = os.Remove(tmp.Name())
		return &fs.PathError{Op: OpWrite, Path: path, Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		var le *os.LinkError
		if errors.As(err, &le) {
			err = le.Err
		}
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			err = syscall.EISDIR // as open(2) says; rename(2) says "file exists" for a full one
		}
		return &fs.PathError{Op: OpCreate, Path: path, Err: err}
	}
	if err := syncDir(dir); err != nil {
		return &fs.PathError{Op: OpWrite, Path: path, Err: err}
	}
	return nil
}

// WriteBytes writes b as path's contents with Write.
func WriteBytes(path string, b []byte, perm fs.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// File is one file of a result directory: its name in the directory, its
// mode (less the umask) and what fills it.
type File struct {
	Name string
	Perm fs.FileMode
	Fill func(w io.Writer) error
}

// WriteDir creates dir (with its parents, 0755 less the umask) and writes
// files into it in order, each with Write, stopping at the first that
// fails (a mkdir failure is os.MkdirAll's *fs.PathError).
//
// Each file is atomic, not the directory as a whole: a temporary
// directory renamed into place cannot replace a directory that exists
// (rename(2) fails on a non-empty target), and result directories often
// do: an experiment's is written after every cell and reused by
// --resume, and --out may name a directory that holds other files. Put
// the result document first: after a kill -9 between two files, the
// document is whole and new, and the files drawn from it (a summary, an
// HTML report) are whole too, old or missing, and can be drawn again from
// the document (etcdlab report).
func WriteDir(dir string, files ...File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := Write(filepath.Join(dir, f.Name), f.Perm, f.Fill); err != nil {
			return err
		}
	}
	return nil
}

// create makes a new temporary file for base in dir, named
// ".base.tmp-N" (hidden, and never a name a result file has).
func create(dir, base string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// fillSync fills f through a buffer, syncs it to the disk and closes it.
func fillSync(f *os.File, fill func(io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 64<<10)
	err := fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs dir, making a rename into it durable. File systems that
// cannot sync a directory (EINVAL) have nothing more to make durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}
