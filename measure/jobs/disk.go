package jobs

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/disk"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// Disk is the disk job (measure/disk, fio's etcd job) on the storage of
// the cell's first member: a workload's disk:.
type Disk struct{}

// DiskJob is the disk job's fields.
type DiskJob struct {
	Profile   string       `yaml:"profile"` // etcd (default) or openshift
	Suite     bool         `yaml:"suite"`   // add the random-read and mixed jobs
	Runtime   job.Duration `yaml:"runtime"` // cap on the main job
	Size      string       `yaml:"size"`
	BlockSize int          `yaml:"bs"`
	Sync      string       `yaml:"sync"`
}

// Name is the workload's key.
func (Disk) Name() string { return "disk" }

// Fields is a *DiskJob.
func (Disk) Fields() any { return (*DiskJob)(nil) }

// Placeholders: a disk job takes no sweep values.
func (Disk) Placeholders(any) []string { return nil }

// Check checks that every setup is local (the job runs on a local
// setup's storage) and the options.
func (Disk) Check(c job.Checker, fields any) error {
	for _, st := range c.Setups() {
		if st.Live {
			return c.Errorf(nil, "the disk job runs on a local setup's storage; setup %q (setups[%d]) is a live cluster", st.Name, st.Index)
		}
	}
	if _, err := diskOptions(fields.(*DiskJob), "."); err != nil {
		return c.Errorf(nil, "%s", job.ErrText(err, yamlDiskName))
	}
	return nil
}

// Plan caps the main job's runtime at the profile's.
func (Disk) Plan(p job.Cell, fields any) (job.Work, error) {
	j := *fields.(*DiskJob)
	if d := job.Duration(p.DiskRuntime); d > 0 && (j.Runtime == 0 || d < j.Runtime) {
		j.Runtime = d
	}
	return &DiskWork{Job: &j}, nil
}

// DiskWork is a disk cell's work: the job under the profile.
type DiskWork struct{ Job *DiskJob }

// Command is the job as `etcdlab disk`'s flags.
func (w *DiskWork) Command() string {
	j := w.Job
	parts := []string{"--profile " + cmp.Or(j.Profile, "etcd")}
	if j.Suite {
		parts = append(parts, "--suite full")
	}
	if j.Runtime > 0 {
		parts = append(parts, "--runtime "+j.Runtime.D().String())
	}
	if j.Size != "" {
		parts = append(parts, "--size "+j.Size)
	}
	if j.BlockSize > 0 {
		parts = append(parts, fmt.Sprintf("--bs %d", j.BlockSize))
	}
	if j.Sync != "" {
		parts = append(parts, "--sync "+j.Sync)
	}
	return "disk " + strings.Join(parts, " ") + " (in the first member's data dir)"
}

// diskSyncTime is one write and fdatasync of the disk job on this
// machine's disk (issue 33's quick runs here: 4,027 to 5,658 IOPS), and
// diskFUSETime what a slow disk's FUSE adds to each beside its delay
// (docs/benchmarks.md, slow-disk emulation: +0.6 to +1.9 ms).
const (
	diskSyncTime = 250 * time.Microsecond
	diskFUSETime = time.Millisecond
)

// Estimate is the job's writes at one fdatasync each (this disk's, plus
// on a slow disk FUSE's and the emulated delay's mean), capped at its
// runtime; the suite's jobs; on a slow disk the child etcdlab's start.
func (w *DiskWork) Estimate(env job.Env) time.Duration {
	j := w.Job
	size, bs := int64(22<<20), 2300
	if j.Profile == "openshift" {
		size, bs = 100<<20, 8000
	}
	if j.Size != "" {
		if n, err := disk.ParseSize(j.Size); err == nil {
			size = n
		}
	}
	if j.BlockSize > 0 {
		bs = j.BlockSize
	}
	op := diskSyncTime
	if env.SlowDisk {
		op += diskFUSETime + env.FsyncMean
	}
	d := time.Duration(size/int64(bs)) * op
	switch {
	case j.Runtime > 0:
		d = min(d, j.Runtime.D())
	case j.Profile == "openshift":
		d = min(d, time.Minute)
	}
	if j.Suite {
		d += 3*8*time.Second + 5*time.Second
	}
	if env.SlowDisk {
		d += job.CostDiskChild.D()
	}
	return d
}

// Run runs the disk job in the first member's data dir: in this process,
// or in a child etcdlab, in the cluster's namespaces, when that dir is a
// slow file system this process serves (diskchild.go).
func (w *DiskWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	if t.Cluster == nil {
		return nil, fmt.Errorf("the disk job needs a local setup")
	}
	st := t.Cluster.State()
	first := st.Members[0]
	o, err := diskOptions(w.Job, first.DataDir)
	if err != nil {
		return nil, err
	}
	if ops := t.Options.SlowedOps(first.Name); len(ops) > 0 {
		doc, err := runDiskChild(ctx, t.Executable, o, t.Cluster.StartChild)
		disk.NoteSlowedOps(doc, ops)
		return doc, err
	}
	return disk.Run(ctx, o)
}

// yamlDiskName names measure/disk's option fields as the file does.
func yamlDiskName(field string) string {
	return map[string]string{"BlockSize": "bs", "Size": "size", "Runtime": "runtime", "Sync": "sync", "Profile": "profile"}[field]
}

// diskOptions builds the disk job's options for dir and checks them as
// far as can be known without running.
func diskOptions(j *DiskJob, dir string) (disk.Options, error) {
	o := disk.Options{Dir: dir, Profile: j.Profile, Suite: j.Suite, Runtime: j.Runtime.D(), BlockSize: j.BlockSize, Sync: j.Sync}
	switch o.Profile {
	case "", disk.ProfileEtcd, disk.ProfileOpenShift:
	default:
		return o, invalid.Errorf("{Profile} must be etcd or openshift, not %q", o.Profile)
	}
	switch o.Sync {
	case "", disk.SyncFdatasync, disk.SyncFsync, disk.SyncODSync:
	default:
		return o, invalid.Errorf("{Sync} must be fdatasync, fsync or odsync, not %q", o.Sync)
	}
	if o.BlockSize < 0 {
		return o, invalid.Errorf("{BlockSize} must be positive, not %d", o.BlockSize)
	}
	if j.Size != "" {
		n, err := disk.ParseSize(j.Size)
		if err != nil {
			return o, invalid.Errorf("{Size}: %v", err)
		}
		o.Size = n
	}
	return o, nil
}
