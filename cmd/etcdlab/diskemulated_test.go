package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/result"
)

// TestExperimentDiskJobMeasuresEmulatedDisk runs an experiment through
// the binary whose disk job runs in a cell on emulated disks: a fixed
// 20 ms fsync delay (one member), and the hdd and ebs-001 presets. The
// disk job must measure the emulation, not this machine's disk (issue 33:
// hdd-diagnosis and disk-qualification measured 0.3 to 0.7 ms where the
// emulation said 268 and 6.4 ms): the fixed delay's p50 and p90 within
// ±25% of 20 ms and its IOPS below 1/20 ms (its p99 is left out: on a
// loaded 2-core machine it also holds the scheduler's delays, 49 ms once
// here at load 9.7); the hdd preset's p50 and IOPS
// within ±25% of its p50 (23 ms) and of 003's 24 IOPS (its p99 over a
// short run's few hundred fsyncs is too noisy to hold to ±25%: the
// built-in's run records it); ebs-001's delay over memory, as
// disk-qualification runs it, its p99 within ±25% of 001's 6.38 ms (over
// this machine's shared disk, under other work, the disk's own fdatasync
// added up to 10 ms to it).
func TestExperimentDiskJobMeasuresEmulatedDisk(t *testing.T) {
	t.Parallel()
	if err := slowfs.Available(); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "disk.yaml")
	text := `name: disk-emulated
setups:
  - {name: fixed, members: 1, storage: "slow:20ms"}
  - {name: hdd, topology: hdd}
  - {name: ebs, topology_spec: {members: 3, storage: {tmpfs: true, fsync_delay: "fit:p99=6376us,p99.5=9138us,p99.9=13721us"}}}
workloads:
  - name: fio
    disk: {profile: etcd, runtime: 8s}
`
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, stdout := cli(t, dir, "experiment", "run", file, "--out", out, "--data-dir", filepath.Join(dir, "data")); code != 0 {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	doc, err := result.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := map[string]result.DiskJob{}
	for _, c := range doc.Experiment.Cells {
		if c.Status != result.CellOK || c.Disk == nil || len(c.Disk.Jobs) == 0 {
			t.Fatalf("cell %s: %s %s", c.ID, c.Status, c.Error)
		}
		jobs[c.Setup] = c.Disk.Jobs[0]
	}
	// Measuring this machine's disk instead of the emulation reads far
	// below the target (0.3 to 0.7 ms in issue 33): the lower bound always
	// holds. Above it, an oversubscribed machine adds its scheduling delays
	// to every percentile (load 12 on 2 cores here: a fixed 20 ms delay's
	// p99 read 43 ms), so the upper bound is held only when the load
	// average is below the cores, and logged otherwise.
	busy := oversubscribed()
	within := func(what string, got, want float64) {
		t.Helper()
		switch {
		case got < 0.75*want:
			t.Errorf("%s: %.4g, want %.4g ±25%%: below the emulation", what, got, want)
		case got > 1.25*want && busy:
			t.Logf("%s: %.4g, over %.4g +25%%, on an oversubscribed machine (not held)", what, got, want)
		case got > 1.25*want:
			t.Errorf("%s: %.4g, want %.4g ±25%%", what, got, want)
		}
	}
	fixed, hdd, ebs := jobs["fixed"], jobs["hdd"], jobs["ebs"]
	within("fixed 20 ms: fdatasync p50", fixed.SyncLatency.At(50), 0.020)
	within("fixed 20 ms: fdatasync p90", fixed.SyncLatency.At(90), 0.020)
	if fixed.IOPS > 1/0.020 {
		t.Errorf("fixed 20 ms: %.0f IOPS, more than one fdatasync every 20 ms allows", fixed.IOPS)
	}
	within("hdd: fdatasync p50 (the preset's 23 ms)", hdd.SyncLatency.At(50), 0.023)
	within("hdd: IOPS (003's 24)", hdd.IOPS, 24)
	within("ebs-001: fdatasync p99 (001's 6.38 ms)", ebs.SyncLatency.At(99), 0.006376)
	t.Logf("fixed p50 %.2f ms p99 %.2f ms %.0f IOPS; hdd p50 %.1f ms p99 %.1f ms %.1f IOPS; ebs-001 p99 %.2f ms %.0f IOPS",
		fixed.SyncLatency.At(50)*1e3, fixed.SyncLatency.At(99)*1e3, fixed.IOPS, hdd.SyncLatency.At(50)*1e3, hdd.SyncLatency.At(99)*1e3, hdd.IOPS,
		ebs.SyncLatency.At(99)*1e3, ebs.IOPS)
}

// oversubscribed reports whether the 1-minute load average is at least
// the machine's cores.
func oversubscribed() bool {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return false
	}
	var load float64
	if _, err := fmt.Sscan(string(b), &load); err != nil {
		return false
	}
	return load >= float64(runtime.NumCPU())
}
