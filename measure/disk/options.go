// Package disk qualifies a disk for etcd the way fio's etcd jobs do, without
// fio: sequential writes with a sync after each (the WAL's pattern), and
// optionally the openshift-etcd-suite's random-read and mixed jobs.
package disk

import (
	"fmt"
	"io"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Profiles of the main job.
const (
	ProfileEtcd      = "etcd"      // fio --rw=write --ioengine=sync --fdatasync=1 --size=22m --bs=2300
	ProfileOpenShift = "openshift" // etcd-perf: --bs=8000 --size=100m, 60 s
)

// Sync modes: what follows each write.
const (
	SyncFdatasync = "fdatasync"
	SyncFsync     = "fsync"
	SyncODSync    = "odsync" // the file is opened O_DSYNC; each write is synchronous
)

// Options configure a qualification. Zero values take the profile's.
type Options struct {
	Dir       string
	Profile   string
	BlockSize int
	Size      int64
	// Runtime caps the main job (0: the profile's cap, none for etcd).
	Runtime time.Duration
	Sync    string
	// Suite adds the random-read and mixed read/write jobs.
	Suite bool
	// Log receives progress for a person.
	Log io.Writer
}

// profile fills in the profile's defaults.
func (o *Options) profile() error {
	if o.Profile == "" {
		o.Profile = ProfileEtcd
	}
	var bs int
	var size int64
	var runtime time.Duration
	switch o.Profile {
	case ProfileEtcd:
		bs, size = 2300, 22<<20
	case ProfileOpenShift:
		bs, size, runtime = 8000, 100<<20, 60*time.Second
	default:
		return invalid.Errorf("{Profile} must be etcd or openshift, not %q", o.Profile)
	}
	if o.BlockSize == 0 {
		o.BlockSize = bs
	}
	if o.Size == 0 {
		o.Size = size
	}
	if o.Runtime == 0 {
		o.Runtime = runtime
	}
	if o.Sync == "" {
		o.Sync = SyncFdatasync
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return nil
}

// validate returns a one-line invalid-input error for bad options.
func (o *Options) validate() error {
	switch {
	case o.BlockSize <= 0:
		return invalid.Errorf("{BlockSize} must be positive, not %d", o.BlockSize)
	case o.BlockSize > 64<<20:
		return invalid.Errorf("{BlockSize} %d is larger than 64 MiB", o.BlockSize)
	case o.Size < int64(o.BlockSize):
		return invalid.Errorf("{Size} (%d bytes) must be at least {BlockSize} (%d bytes)", o.Size, o.BlockSize)
	case o.Runtime < 0:
		return invalid.Errorf("{Runtime} must not be negative")
	}
	switch o.Sync {
	case SyncFdatasync, SyncFsync, SyncODSync:
	default:
		return invalid.Errorf("{Sync} must be fdatasync, fsync or odsync, not %q", o.Sync)
	}
	return nil
}

// FioEquivalent is the fio command line the main job reproduces.
func (o *Options) FioEquivalent() string {
	sync := "--fdatasync=1"
	switch o.Sync {
	case SyncFsync:
		sync = "--fsync=1"
	case SyncODSync:
		sync = "--sync=dsync"
	}
	s := fmt.Sprintf("fio --name=etcdlab --directory=%s --rw=write --ioengine=sync %s --size=%d --bs=%d", o.Dir, sync, o.Size, o.BlockSize)
	if o.Runtime > 0 {
		s += fmt.Sprintf(" --runtime=%d", int(o.Runtime.Seconds()))
	}
	return s
}
