// Package jobs holds the experiment runner's jobs (measure/experiment/job):
// what a workload of an experiment file runs, one adapter per command
// (bench.go, disk.go, check.go, doctorjob.go with doctor.go), each
// decoding and checking its own fields, estimating and running its work
// against a cell's target. Registry is their table; the CLI hands it to
// experiment.Parse (or Load).
//
// The jobs and their work are immutable once made and safe to share; a
// work's Run is called by one cell's goroutine.
package jobs

import "github.com/etcdlab/etcdlab/measure/experiment/job"

// Registry is every job an experiment file may name, in the order messages
// list them. Adding a job is one adapter file and one line here.
func Registry() job.Registry {
	return job.Registry{Bench{}, Disk{}, Check{}, Doctor{}, Maintenance{}}
}
