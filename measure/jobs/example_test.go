package jobs_test

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/measure/experiment"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/result"
)

// Pause is a job that holds the cell's cluster idle: a workload's
// "pause: 2s". Adding a job is one file like this one plus one
// registration (its line in jobs.Registry, here appended to it).
type Pause struct{}

func (Pause) Name() string              { return "pause" }
func (Pause) Fields() any               { return job.Duration(0) }
func (Pause) Placeholders(any) []string { return nil }

func (Pause) Check(c job.Checker, fields any) error {
	if d := fields.(job.Duration); d.D() > time.Hour {
		return c.Errorf(nil, "%s: pause for at most an hour", d.D())
	}
	return nil
}

func (Pause) Plan(_ job.Cell, fields any) (job.Work, error) {
	return pauseWork(fields.(job.Duration)), nil
}

// pauseWork is a planned pause.
type pauseWork job.Duration

func (w pauseWork) Command() string                { return "pause " + job.Duration(w).D().String() }
func (w pauseWork) Estimate(job.Env) time.Duration { return job.Duration(w).D() }

func (w pauseWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(job.Duration(w).D()):
	}
	t.Cell.Notes = append(t.Cell.Notes, "the cluster idled")
	return nil, nil // no document: the cell records its notes only
}

// A registry with one more job: experiment files then take its key.
func Example() {
	reg := append(jobs.Registry(), Pause{})
	s, err := experiment.Parse("idle.yaml", []byte(`
setups: [{name: one, members: 1}]
workloads:
  - {name: idle, pause: 2s}
  - {name: put, bench: put --total=100}
`), reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := s.Plan("")
	for _, c := range p.Cells {
		fmt.Println(c.ID, "|", c.Command())
	}
	_, err = experiment.Parse("bad.yaml", []byte("setups: [{name: one}]\nworkloads: [{name: idle, pause: 2h}]\n"), reg)
	fmt.Println(err)
	// Output:
	// one/idle | pause 2s
	// one/put | bench put --total=100
	// bad.yaml line 2: workloads[0].pause: 2h0m0s: pause for at most an hour
}
