package disk

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/exitcode"
	"github.com/etcdlab/etcdlab/result"
	"golang.org/x/sys/unix"
)

// seqSyncJob is fio's etcd job: the file is preallocated (fio's default
// fallocate=native layout for a write job), then written sequentially in
// blocks of BlockSize, each write followed by the sync call, until Size is
// written, Runtime passes or ctx ends.
func seqSyncJob(ctx context.Context, o *Options, path string) (result.DiskJob, error) {
	job := result.DiskJob{Name: "sequential " + o.Sync, BlockSize: o.BlockSize, Sync: o.Sync, QueueDepth: 1}
	flags := os.O_CREATE | os.O_EXCL | os.O_WRONLY
	if o.Sync == SyncODSync {
		flags |= unix.O_DSYNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return job, ioError("create the test file", o.Dir, err)
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.Fallocate(fd, 0, 0, o.Size); err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
		return job, ioError(fmt.Sprintf("reserve %s for the test file", humanize.IBytes(uint64(o.Size))), o.Dir, err)
	}
	buf := make([]byte, o.BlockSize)
	_, _ = rand.Read(buf)
	ioLat, syncLat := newLatencies(), newLatencies()
	start := time.Now()
	for off := int64(0); off+int64(o.BlockSize) <= o.Size; off += int64(o.BlockSize) {
		if ctx.Err() != nil {
			job.StoppedEarly = "interrupted"
			break
		}
		if o.Runtime > 0 && time.Since(start) >= o.Runtime {
			job.StoppedEarly = fmt.Sprintf("runtime cap of %s reached", o.Runtime)
			break
		}
		if len(buf) >= 8 {
			binary.LittleEndian.PutUint64(buf, uint64(off)) // no two blocks alike (fio scrambles too)
		}
		t0 := time.Now()
		if _, err := f.Write(buf); err != nil {
			return job, ioError("write the test file", o.Dir, err)
		}
		t1 := time.Now()
		ioLat.add(t1.Sub(t0))
		switch o.Sync {
		case SyncFdatasync:
			err = unix.Fdatasync(fd)
		case SyncFsync:
			err = unix.Fsync(fd)
		}
		if err != nil {
			return job, ioError(o.Sync, o.Dir, err)
		}
		if o.Sync == SyncODSync {
			syncLat.add(t1.Sub(t0))
		} else {
			syncLat.add(time.Since(t1))
		}
		job.Ops++
	}
	elapsed := time.Since(start)
	job.Bytes = job.Ops * int64(o.BlockSize)
	job.WriteOps = job.Ops
	fill(&job, elapsed)
	job.IOLatency, job.SyncLatency = ioLat.summary(), syncLat.summary()
	return job, nil
}

// fill computes rates from counts and the elapsed time.
func fill(job *result.DiskJob, elapsed time.Duration) {
	job.RuntimeSeconds = elapsed.Seconds()
	if elapsed <= 0 {
		return
	}
	s := elapsed.Seconds()
	job.IOPS = float64(job.Ops) / s
	job.ReadIOPS = float64(job.ReadOps) / s
	job.WriteIOPS = float64(job.WriteOps) / s
	job.BandwidthBytesS = float64(job.Bytes) / s
}

// ioError turns a file-system error into a one-line error with an exit code.
func ioError(what, dir string, err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOSPC, unix.EDQUOT:
			return exitcode.Failuref("%s in %s: the disk is full", what, dir)
		case unix.EROFS:
			return exitcode.Failuref("%s in %s: read-only file system", what, dir)
		case unix.EACCES, unix.EPERM:
			return exitcode.Failuref("%s in %s: permission denied", what, dir)
		}
		return exitcode.Failuref("%s in %s: %s", what, dir, errno.Error())
	}
	return exitcode.Failuref("%s in %s: %v", what, dir, err)
}
