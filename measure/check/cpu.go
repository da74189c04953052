package check

import (
	"fmt"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// membersCores is the cores the members used between two scrapes of each
// (process_cpu_seconds_total), summed; members whose scrapes failed add
// nothing.
func membersCores(before, after []*metrics.Snapshot) float64 {
	var cores float64
	eachPair(before, after, func(b, a *metrics.Snapshot) {
		secs := a.At.Sub(b.At).Seconds()
		if cpu, ok := metrics.Increase(b, a, metrics.ProcessCPUSeconds); ok && secs > 0 {
			cores += cpu / secs
		}
	})
	return cores
}

// fastDisk is the disk probe's measurement that rules the disk out as the
// cause of slow fsyncs and commits ("its fdatasync p99 was 240 µs in
// etcd's disk job"), or "" when the probe did not pass etcd's limit.
func fastDisk(vs []result.Verdict) string {
	for _, v := range vs {
		if v.ID == string(judge.DiskFsyncP99) && v.Status == result.Pass && v.Value > 0 {
			return fmt.Sprintf("the disk probe measured fdatasync p99 %s on it (etcd asks for under %s)", units.Seconds(v.Value), judge.LimitWALFsyncP99.Text())
		}
	}
	return ""
}
