package jobs

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/measure/check"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// Check is etcdlab check against the cell's cluster (as a live cluster:
// load levels, the members' metrics, verdicts): a workload's check:.
type Check struct{}

// CheckJob is the check's fields.
type CheckJob struct {
	Load          string       `yaml:"load"`     // first level (s)
	MaxLoad       string       `yaml:"max_load"` // last level (s)
	LevelDuration job.Duration `yaml:"level_duration"`
}

// Name is the workload's key.
func (Check) Name() string { return "check" }

// Fields is a *CheckJob.
func (Check) Fields() any { return (*CheckJob)(nil) }

// Placeholders: a check takes no sweep values.
func (Check) Placeholders(any) []string { return nil }

// Check checks the load levels.
func (Check) Check(c job.Checker, fields any) error {
	j := fields.(*CheckJob)
	for _, l := range []struct{ field, v string }{{"load", j.Load}, {"max_load", j.MaxLoad}} {
		if l.v != "" && !slices.Contains([]string{"s", "m", "l", "xl"}, l.v) {
			return c.Errorf([]any{l.field}, "load level must be s, m, l or xl, not %q", l.v)
		}
	}
	return nil
}

// Plan sets the profile's level duration.
func (Check) Plan(p job.Cell, fields any) (job.Work, error) {
	j := *fields.(*CheckJob)
	if p.LevelDuration > 0 {
		j.LevelDuration = job.Duration(p.LevelDuration)
	}
	return &CheckWork{Job: &j}, nil
}

// CheckWork is a check cell's work: the check under the profile.
type CheckWork struct{ Job *CheckJob }

// Command is the check as `etcdlab check`'s flags.
func (w *CheckWork) Command() string {
	j := w.Job
	parts := []string{"--load " + cmp.Or(j.Load, "s"), "--max-load " + cmp.Or(j.MaxLoad, "s")}
	if j.LevelDuration > 0 {
		parts = append(parts, "--level-duration "+j.LevelDuration.D().String())
	}
	return "check " + strings.Join(parts, " ") + " (against the cell's cluster)"
}

// checkLevelOverhead is a check level's scrapes and ramp; checkProbe the
// probes before the first level.
const (
	checkLevelOverhead = time.Second
	checkProbe         = 2 * time.Second
)

// Estimate is the probes and each level with its overhead.
func (w *CheckWork) Estimate(job.Env) time.Duration {
	j := w.Job
	ld := j.LevelDuration.D()
	if ld == 0 {
		ld = 6 * time.Second
	}
	return checkProbe + time.Duration(levelSpan(j.Load, j.MaxLoad))*(ld+checkLevelOverhead)
}

// levelSpan is how many check levels run from first to last ("" = s).
func levelSpan(first, last string) int {
	idx := map[string]int{"": 0, "s": 0, "m": 1, "l": 2, "xl": 3}
	return max(1, idx[last]-idx[first]+1)
}

// Run runs etcdlab check against the cell's cluster, as a live cluster.
func (w *CheckWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	o := check.Options{Conn: t.Conn, StartLoad: w.Job.Load, MaxLoad: w.Job.MaxLoad, LevelDuration: w.Job.LevelDuration.D()}
	if t.Cluster != nil {
		o.MetricsURLs = t.Cluster.State().MetricsURLs
	} else {
		o.MetricsURLs = t.MetricsURLs
	}
	return check.Run(ctx, o)
}
