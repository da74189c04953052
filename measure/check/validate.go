package check

import (
	"io"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/disk"
)

// validate checks o and fills in its defaults before Run starts, probes or
// prints anything, and returns the indexes in Levels of the first and last
// load levels. Its errors are invalid-input errors (package invalid).
func (o *Options) validate() (first, last int, err error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.LevelDuration < 0 || o.DiskRuntime < 0 {
		return 0, 0, invalid.Errorf("{LevelDuration} and {DiskRuntime} must not be negative")
	}
	if o.LevelDuration == 0 {
		o.LevelDuration = defaultLevelDuration
	}
	if o.DiskRuntime == 0 {
		o.DiskRuntime = defaultDiskRuntime
	}
	live := len(o.Conn.Endpoints) > 0
	if o.StartLoad == "" {
		o.StartLoad = "s"
	}
	if o.MaxLoad == "" {
		o.MaxLoad = map[bool]string{true: "s", false: "xl"}[live]
	}
	first, ok := levelIndex(o.StartLoad)
	if !ok {
		return 0, 0, invalid.Errorf("{StartLoad}: load level must be s, m, l or xl, not %q", o.StartLoad)
	}
	last, ok = levelIndex(o.MaxLoad)
	if !ok {
		return 0, 0, invalid.Errorf("{MaxLoad}: load level must be s, m, l or xl, not %q", o.MaxLoad)
	}
	if last < first {
		return 0, 0, invalid.Errorf("{MaxLoad} %s is below {StartLoad} %s", o.MaxLoad, o.StartLoad)
	}
	if o.DataDir == "" {
		o.DataDir = "."
	}
	if o.LoadCPUs != 0 && !live {
		return 0, 0, invalid.Errorf("{LoadCPUs} applies to a live cluster ({Endpoints}): the members check starts here would be born in the load's budget")
	}
	if !live { // the disk probe runs first: its directory before anything
		if err := (disk.Options{Dir: o.DataDir, Runtime: o.DiskRuntime}).Validate(); err != nil {
			return 0, 0, err
		}
	}
	return first, last, nil
}

// Validate checks o as Run would, without running anything or changing o.
// Its errors are invalid-input errors (package invalid) that name the
// fields of Options (the disk probe's directory as disk's Dir).
func (o Options) Validate() error {
	_, _, err := o.validate()
	return err
}
