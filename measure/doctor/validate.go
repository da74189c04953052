package doctor

import (
	"errors"
	"io/fs"
	"os"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/disk"
)

// validateFiles checks the files and directories the diagnosis reads or
// writes after its window, before it reaches the cluster: a diagnosis
// that would end on a missing log file must not first watch the cluster
// for the window. Its errors are invalid-input errors (package invalid).
func (o *Options) validateFiles() error {
	if o.DataDir != "" {
		if err := (disk.Options{Dir: o.DataDir, Runtime: o.DiskRuntime}).Validate(); err != nil {
			return err
		}
	}
	if o.Logs != "" && o.Logs != "-" {
		if _, err := os.Stat(o.Logs); errors.Is(err, fs.ErrNotExist) {
			return invalid.Errorf("{Logs} %s does not exist", o.Logs)
		}
	}
	return nil
}
