package disk

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/dustin/go-humanize"
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
	buf := alignedBuffer(o.BlockSize)
	_, _ = rand.Read(buf)
	ioLat, syncLat := newLatencies(), newLatencies()
	trap := uintptr(unix.SYS_FDATASYNC)
	if o.Sync == SyncFsync {
		trap = unix.SYS_FSYNC
	}
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
		// Only the system call lies between the two clock reads of each
		// measurement; recording happens after both.
		t0 := nanotime()
		werr := rawWrite(fd, buf)
		t1 := nanotime()
		if werr != nil {
			return job, ioError("write the test file", o.Dir, werr)
		}
		var serr error
		t2 := t1
		if o.Sync != SyncODSync {
			t2 = nanotime()
			serr = rawSync(trap, fd)
		}
		t3 := nanotime()
		if serr != nil {
			return job, ioError(o.Sync, o.Dir, serr)
		}
		ioLat.add(time.Duration(t1 - t0))
		if o.Sync == SyncODSync {
			syncLat.add(time.Duration(t1 - t0))
		} else {
			syncLat.add(time.Duration(t3 - t2))
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

// rawWrite and rawSync make the timed system calls without the Go
// scheduler's bookkeeping around a blocking call (entersyscall/exitsyscall
// and a possible hand-off of the P), which adds tens of nanoseconds to every
// call (a third of a tmpfs sync) and microseconds to the tail on a disk;
// measured side by side with fio in perf/vs-fio.sh. The loop allocates
// nothing and other goroutines run on the other Ps. A raw call cannot be
// stopped for garbage collection while it blocks, so the directory must not
// be a FUSE file system served by this same process (etcdlab never does
// that: `disk` runs in its own process, slow disks are served by
// `cluster up`).
func rawWrite(fd int, b []byte) error {
	for len(b) > 0 {
		n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if errno != 0 {
			if errno == unix.EINTR {
				continue
			}
			return errno
		}
		b = b[n:]
	}
	return nil
}

func rawSync(trap uintptr, fd int) error {
	for {
		_, _, errno := unix.RawSyscall(trap, uintptr(fd), 0, 0)
		if errno != unix.EINTR {
			if errno != 0 {
				return errno
			}
			return nil
		}
	}
}

// alignedBuffer returns n bytes starting on a page boundary, as fio's I/O
// buffers do.
func alignedBuffer(n int) []byte {
	const page = 4096
	b := make([]byte, n+page)
	off := (page - int(uintptr(unsafe.Pointer(&b[0]))%page)) % page
	return b[off : off+n]
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

// ioError turns a file-system error into a one-line error naming what failed.
func ioError(what, dir string, err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOSPC, unix.EDQUOT:
			return fmt.Errorf("%s in %s: the disk is full", what, dir)
		case unix.EROFS:
			return fmt.Errorf("%s in %s: read-only file system", what, dir)
		case unix.EACCES, unix.EPERM:
			return fmt.Errorf("%s in %s: permission denied", what, dir)
		}
		return fmt.Errorf("%s in %s: %w", what, dir, errno)
	}
	return fmt.Errorf("%s in %s: %w", what, dir, err)
}
