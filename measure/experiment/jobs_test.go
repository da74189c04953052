package experiment

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/result"
)

// The tests read files with the jobs the CLI registers.

func parseSpec(file string, text []byte) (*Spec, error) { return Parse(file, text, jobs.Registry()) }
func loadSpec(name string) (*Spec, error)               { return Load(name, jobs.Registry()) }
func resumeSpec(old *result.Document) (*Spec, error)    { return ResumeSpec(old, jobs.Registry()) }

// benchOf is a bench cell's parsed line.
func benchOf(c *Cell) bench.CommandLine { return c.Work.(*jobs.BenchWork).Bench }

// diskOf is a disk cell's job under its profile.
func diskOf(c *Cell) *jobs.DiskJob { return c.Work.(*jobs.DiskWork).Job }

var _ job.Work = (*jobs.BenchWork)(nil)
