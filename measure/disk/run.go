package disk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/result"
)

// testFilePrefix names etcdlab's test files, so that a file left by a killed
// run can be recognised and removed by the next.
const testFilePrefix = ".etcdlab-disk-"

// Run qualifies the disk holding o.Dir and returns the result with its
// verdicts. Test files are always removed, also when ctx is cancelled.
// Errors are one line; bad options (and a Dir that is not a directory) are
// invalid-input errors (package invalid). A FAIL verdict is not an error;
// the caller decides.
func Run(ctx context.Context, o Options) (*result.Document, error) {
	if err := o.profile(); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	dir, err := checkDir(o.Dir)
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	sweepStale(dir, &o)
	if o.Suite && o.Runtime == 0 {
		o.Runtime = suiteFsyncTime
	}
	self, _ := proc.Self()
	base := filepath.Join(dir, fmt.Sprintf("%s%d-%d", testFilePrefix, self.PID, self.StartTime))
	path, dataPath := base+".tmp", base+"-suite.tmp"
	defer os.Remove(path)
	defer os.Remove(dataPath)

	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindDisk, CreatedAt: time.Now().UTC(), Environment: envinfo.Collect()}
	fsType := envinfo.Filesystem(dir)
	doc.Environment.DataDir, doc.Environment.Filesystem = dir, fsType
	m, _ := findMount(dir)
	d := &result.Disk{Profile: o.Profile, Dir: dir, Filesystem: fsType, Device: device(m), Equivalent: o.FioEquivalent()}
	doc.Disk = d

	fmt.Fprintf(o.Log, "writing %d × %d B with %s after each in %s (%s)...\n", o.Size/int64(o.BlockSize), o.BlockSize, o.Sync, dir, fsType)
	job, err := seqSyncJob(ctx, &o, path)
	_ = os.Remove(path)
	if err != nil {
		return nil, err
	}
	d.Jobs = append(d.Jobs, job)
	doc.Verdicts = verdicts(job, o.Sync)
	if o.Suite && ctx.Err() == nil {
		if err := runSuite(ctx, &o, dataPath, d, job.IOPS); err != nil {
			return doc, err
		}
		_ = os.Remove(dataPath)
	}
	d.Warnings = honestWarnings(m, fsType, job.SyncLatency.At(50), job.Bytes, &o)
	doc.Overall = result.Overall(doc.Verdicts)
	if job.StoppedEarly == "interrupted" || ctx.Err() != nil {
		return doc, errors.New("interrupted: the results are partial")
	}
	return doc, nil
}

// verdicts applies the disk thresholds to the main job.
func verdicts(job result.DiskJob, sync string) []result.Verdict {
	if job.Ops == 0 || job.SyncLatency == nil {
		return []result.Verdict{{ID: string(judge.DiskFsyncP99), What: sync + " p99", Status: result.Skip, Explanation: "no write completed"}}
	}
	p99 := judge.Value(judge.DiskFsyncP99, job.SyncLatency.At(99), units.Seconds)
	p999 := judge.Value(judge.DiskFsyncP999, job.SyncLatency.At(99.9), units.Seconds)
	if p999.Value >= judge.LimitWALFsyncP99.Value() {
		p999.Status = result.Warn
		p999.Explanation = fmt.Sprintf("%s p99.9 %s is over %s (etcd-tools calls this BAD): tail spikes this long delay etcd's WAL and heartbeats", sync, p999.Display, judge.LimitWALFsyncP99.Text())
	}
	iops := judge.IOPSTier(job.IOPS)
	for _, v := range []*result.Verdict{&p99, &p999} {
		v.What = strings.Replace(v.What, "fdatasync", sync, 1)
	}
	iops.What = "sequential " + sync + " IOPS"
	return []result.Verdict{p99, p999, iops}
}

// runSuite runs the random-read and mixed jobs on a laid-out data file.
func runSuite(ctx context.Context, o *Options, path string, d *result.Disk, fsyncIOPS float64) error {
	size := int64(suiteFileSize)
	fmt.Fprintf(o.Log, "laying out a %d MiB file for the random and mixed jobs...\n", size>>20)
	if err := layout(ctx, path, size); err != nil {
		return ioError("lay out the suite's data file", o.Dir, err)
	}
	rr, err := randReadJob(ctx, path, size, 4, suiteJobTime)
	if err != nil {
		return ioError("random reads", o.Dir, err)
	}
	d.Jobs = append(d.Jobs, rr)
	for _, pct := range []int{70, 30} {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprintf(o.Log, "mixed %d/%d read/write...\n", pct, 100-pct)
		mj, err := mixedJob(ctx, path, size, pct, suiteJobTime)
		if err != nil {
			return ioError("mixed reads and writes", o.Dir, err)
		}
		d.Jobs = append(d.Jobs, mj)
	}
	if !rr.Direct {
		d.Warnings = append(d.Warnings, d.Filesystem+" does not support O_DIRECT: the random and mixed jobs went through the page cache")
	}
	d.Suite = classify(fsyncIOPS, rr.IOPS)
	return nil
}

// sweepStale removes test files left by disk runs that were killed.
func sweepStale(dir string, o *Options) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), testFilePrefix)
		if !ok || !strings.HasSuffix(name, ".tmp") {
			continue
		}
		parts := strings.SplitN(strings.TrimSuffix(strings.TrimSuffix(name, ".tmp"), "-suite"), "-", 2)
		if len(parts) != 2 {
			continue
		}
		pid, err1 := strconv.Atoi(parts[0])
		st, err2 := strconv.ParseUint(parts[1], 10, 64)
		if err1 != nil || err2 != nil || (proc.ID{PID: pid, StartTime: st}).Alive() {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			fmt.Fprintf(o.Log, "removed %s, left by a killed etcdlab disk run\n", e.Name())
		}
	}
}
