package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/etcdlab/etcdlab/invalid"
)

// Validate checks o as Run would before it writes anything, without
// changing o: the profile, the options against it, and Dir an existing
// directory. Its errors are invalid-input errors (package invalid), except
// a Dir that cannot be examined (permission denied on a parent). Callers
// that run the disk job later (check, doctor) call it before they start
// anything else.
func (o Options) Validate() error {
	if err := o.profile(); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	_, err := checkDir(o.Dir)
	return err
}

// checkDir returns dir as an absolute path if it is an existing
// directory.
func checkDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("directory %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", invalid.Errorf("{Dir} %s does not exist", abs)
	case err != nil:
		return "", fmt.Errorf("directory %s: %w", abs, err)
	case !st.IsDir():
		return "", invalid.Errorf("{Dir} %s is not a directory", abs)
	}
	return abs, nil
}
