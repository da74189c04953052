package experiment

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/result"
)

// ownJob is a job whose work starts clusters of its own (as the size
// job's does): "own: 1s" waits that long and notes whether it got the
// cell's cluster and the data dir.
type ownJob struct{}

func (ownJob) Name() string                             { return "own" }
func (ownJob) Fields() any                              { return job.Duration(0) }
func (ownJob) Placeholders(any) []string                { return nil }
func (ownJob) Check(job.Checker, any) error             { return nil }
func (ownJob) Plan(_ job.Cell, f any) (job.Work, error) { return ownWork(f.(job.Duration)), nil }

type ownWork job.Duration

func (ownWork) StartsOwnClusters() bool          { return true }
func (ownWork) Command() string                  { return "own" }
func (w ownWork) Estimate(job.Env) time.Duration { return job.Duration(w).D() }
func (w ownWork) Run(_ context.Context, t *job.Target) (*result.Document, error) {
	time.Sleep(job.Duration(w).D())
	t.Cell.Notes = append(t.Cell.Notes, "cluster "+map[bool]string{true: "none", false: "given"}[t.Cluster == nil], "data dir "+t.DataDir)
	return nil, nil
}

// TestOwnClusters: a work that starts its own clusters (job.OwnClusters)
// gets no cluster from its cell (none is started), the experiment's data
// dir instead; its
// estimate counts no cluster's start, and the plan says the setup starts
// none.
func TestOwnClusters(t *testing.T) {
	t.Parallel()
	reg := append(jobs.Registry(), ownJob{})
	s, err := Parse("own.yaml", []byte("setups: [{name: here, members: 1, storage: tmpfs}]\nworkloads: [{name: o, own: 1s}]\n"), reg)
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Plan("")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Cells[0].Estimate; got != time.Second {
		t.Errorf("estimate %s, want the work's 1s and no cluster's start", got)
	}
	var plan strings.Builder
	if err := WritePlan(&plan, p); err != nil || !strings.Contains(plan.String(), "no cluster of its own") {
		t.Errorf("the plan does not say the setup starts no cluster (%v):\n%s", err, plan.String())
	}
	dir := t.TempDir()
	doc, err := Run(context.Background(), Options{Plan: p, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	c := doc.Experiment.Cells[0]
	if c.Status != result.CellOK || strings.Join(c.Notes, "; ") != "cluster none; data dir "+dir || c.Overhead.ClusterStartSeconds != 0 {
		t.Errorf("cell %s %s %q, start %g s", c.Status, c.Error, c.Notes, c.Overhead.ClusterStartSeconds)
	}
}
