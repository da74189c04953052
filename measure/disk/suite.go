package disk

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/etcdlab/etcdlab/result"
	"golang.org/x/sys/unix"
)

// Suite parameters: openshift-etcd-suite's libaio jobs (4 KiB, O_DIRECT,
// random reads at depth 4; sequential mixed 70/30 and 30/70 at depth 1),
// each capped so the whole suite ends within a minute on a healthy disk
// (the original runs each for 10 s ramp + 120 s).
const (
	suiteBlock     = 4096
	suiteFileSize  = 256 << 20
	suiteJobTime   = 8 * time.Second
	suiteFsyncTime = 20 * time.Second
)

// alignedBlock returns a 4 KiB buffer aligned for O_DIRECT.
func alignedBlock() []byte {
	b := make([]byte, 2*suiteBlock)
	off := suiteBlock - int(uintptr(unsafe.Pointer(&b[0]))&(suiteBlock-1))
	if off == suiteBlock {
		off = 0
	}
	return b[off : off+suiteBlock]
}

// layout writes the suite's data file (reads of unwritten blocks would not
// touch the disk).
func layout(ctx context.Context, path string, size int64) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + 3)
	}
	for off := int64(0); off < size; off += int64(len(buf)) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	return f.Sync()
}

// openDirect opens path with O_DIRECT, or without it where the file system
// does not support it (tmpfs), saying so.
func openDirect(path string, flags int) (*os.File, bool, error) {
	f, err := os.OpenFile(path, flags|unix.O_DIRECT, 0)
	if err == nil {
		return f, true, nil
	}
	if !errors.Is(err, unix.EINVAL) {
		return nil, false, err
	}
	f, err = os.OpenFile(path, flags, 0)
	return f, false, err
}

// randReadJob reads random 4 KiB blocks with depth goroutines for d.
func randReadJob(ctx context.Context, path string, size int64, depth int, d time.Duration) (result.DiskJob, error) {
	job := result.DiskJob{Name: "random read 4 KiB", BlockSize: suiteBlock, QueueDepth: depth}
	f, direct, err := openDirect(path, os.O_RDONLY)
	if err != nil {
		return job, err
	}
	defer f.Close()
	job.Direct = direct
	fd := int(f.Fd())
	blocks := size / suiteBlock
	lats := make([]*latencies, depth)
	ops := make([]int64, depth)
	errs := make([]error, depth)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range depth {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := alignedBlock()
			rnd := mrand.New(mrand.NewPCG(uint64(w), uint64(start.UnixNano())))
			l := newLatencies()
			lats[w] = l
			for ctx.Err() == nil {
				t0 := time.Now()
				if t0.After(deadline) {
					return
				}
				if _, err := unix.Pread(fd, buf, rnd.Int64N(blocks)*suiteBlock); err != nil {
					errs[w] = err
					return
				}
				l.add(time.Since(t0))
				ops[w]++
			}
		}()
	}
	wg.Wait()
	all := newLatencies()
	for w := range depth {
		if errs[w] != nil {
			return job, errs[w]
		}
		all.merge(lats[w])
		job.Ops += ops[w]
	}
	job.ReadOps, job.Bytes = job.Ops, job.Ops*suiteBlock
	fill(&job, time.Since(start))
	job.IOLatency = all.summary()
	if ctx.Err() != nil {
		job.StoppedEarly = "interrupted"
	}
	return job, nil
}

// mixedJob walks the file sequentially at depth 1, reading a block with
// probability readPct/100 and writing it otherwise, for d.
func mixedJob(ctx context.Context, path string, size int64, readPct int, d time.Duration) (result.DiskJob, error) {
	job := result.DiskJob{Name: fmt.Sprintf("mixed %d/%d read/write 4 KiB", readPct, 100-readPct), BlockSize: suiteBlock, QueueDepth: 1}
	f, direct, err := openDirect(path, os.O_RDWR)
	if err != nil {
		return job, err
	}
	defer f.Close()
	job.Direct = direct
	fd := int(f.Fd())
	buf := alignedBlock()
	rnd := mrand.New(mrand.NewPCG(uint64(readPct), 7))
	l := newLatencies()
	start := time.Now()
	deadline := start.Add(d)
	for off := int64(0); ctx.Err() == nil; off = (off + suiteBlock) % size {
		t0 := time.Now()
		if t0.After(deadline) {
			break
		}
		if rnd.IntN(100) < readPct {
			if _, err := unix.Pread(fd, buf, off); err != nil {
				return job, err
			}
			job.ReadOps++
		} else {
			if _, err := unix.Pwrite(fd, buf, off); err != nil {
				return job, err
			}
			job.WriteOps++
		}
		l.add(time.Since(t0))
	}
	job.Ops = job.ReadOps + job.WriteOps
	job.Bytes = job.Ops * suiteBlock
	fill(&job, time.Since(start))
	job.IOLatency = l.summary()
	if ctx.Err() != nil {
		job.StoppedEarly = "interrupted"
	}
	return job, nil
}

// classify places the disk in etcd-tools' matrix (workflow.md): fsync
// IOPS below 300 is too few for etcd, and with 10k+ random IOPS the disk is
// tuned for random, concurrent I/O rather than sequential syncs; 300 and
// up is balanced.
func classify(fsyncIOPS, randIOPS float64) string {
	switch {
	case fsyncIOPS < 300 && randIOPS >= 10000:
		return fmt.Sprintf("over-tuned for random I/O: %.0f random read IOPS but only %.0f fsync IOPS; etcd needs sequential syncs (etcd-tools workflow.md)", randIOPS, fsyncIOPS)
	case fsyncIOPS < 300:
		return fmt.Sprintf("too few fsync IOPS for etcd: %.0f < 300 (etcd-tools workflow.md)", fsyncIOPS)
	default:
		return fmt.Sprintf("balanced: %.0f fsync IOPS, %.0f random read IOPS (etcd-tools workflow.md: 300+ fsync IOPS)", fsyncIOPS, randIOPS)
	}
}
