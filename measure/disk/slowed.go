package disk

import (
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// Operations an emulated slow disk (emulate/slowfs, through a local
// cluster's options: cluster.Options.SlowedOps) can delay.
const (
	SlowedFsync = "fsync"
	SlowedRead  = "read"
	SlowedWrite = "write" // O_DIRECT writes
)

// NoteSlowedOps adds to doc, a disk result measured on an emulated slow
// disk that delays ops (of SlowedFsync, SlowedRead, SlowedWrite), a
// warning naming the jobs that measured this machine's own disk instead,
// because what they do was not delayed: the main job without a fsync
// delay; the suite's random-read job without a read delay, its mixed jobs
// without a read or write delay. Nothing when ops is empty (no emulated
// disk) or doc has no disk result.
func NoteSlowedOps(doc *result.Document, ops []string) {
	if doc == nil || doc.Disk == nil || len(ops) == 0 {
		return
	}
	d := doc.Disk
	suite := len(d.Jobs) > 1
	fsync, read, write := slices.Contains(ops, SlowedFsync), slices.Contains(ops, SlowedRead), slices.Contains(ops, SlowedWrite)
	var notSlowed, jobs []string
	if !fsync {
		notSlowed, jobs = append(notSlowed, "syncs"), append(jobs, "the main job")
	}
	if suite && !read {
		notSlowed, jobs = append(notSlowed, "reads"), append(jobs, "the random-read job")
	}
	if suite && !write {
		notSlowed = append(notSlowed, "O_DIRECT writes")
	}
	if suite && (!read || !write) {
		jobs = append(jobs, "the mixed jobs")
	}
	if len(notSlowed) == 0 {
		return
	}
	var slowed []string
	for _, op := range ops {
		slowed = append(slowed, map[string]string{SlowedFsync: "syncs", SlowedRead: "reads", SlowedWrite: "O_DIRECT writes"}[op])
	}
	d.Warnings = append(d.Warnings, "the emulated slow disk delays "+strings.Join(slowed, " and ")+" only: "+strings.Join(notSlowed, " and ")+
		" were not slowed, so "+strings.Join(jobs, " and ")+" measured this machine's disk, not the emulated one")
}
