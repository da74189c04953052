package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/doctor"
	"github.com/etcdlab/etcdlab/measure/engines"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// loadSlack is how much longer than the incident's settle and window a
// background load is sized to run: it is stopped when the diagnosis ends.
const loadSlack = time.Minute

// estimate is how long the incident takes besides the cluster: its fill,
// settle and diagnosis.
// doctorBeyondWindow is a diagnosis's time beyond its window
// (docs/benchmarks.md, doctor's time to a diagnosis: 8.33 s with the
// default 8 s window).
const doctorBeyondWindow = 500 * time.Millisecond

func (d *DoctorJob) estimate() time.Duration {
	e := d.settle() + d.window() + doctorBeyondWindow
	if f := d.Fill; f != nil {
		switch {
		case f.Keys > 0:
			e += time.Duration(f.Keys*(1+f.Rewrites)) * fillPerKey
		default:
			e += fillToQuota
		}
		if f.Delete {
			e += fillDelete
		}
	}
	return e
}

// What an incident's fill adds, from perf/estimates.sh quick (75a86e9,
// 2026-11-28, quiet machine): expensive-reads' 100,000 keys made its cell
// 2 to 3 s longer than the plain incidents' 12 to 14 s (20 µs a key);
// fragmentation's 8,000 keys and their delete, and the fills to 85% of a
// 64 MiB quota and to NOSPACE on a 32 MiB one, added under a second.
const (
	fillPerKey  = 20 * time.Microsecond
	fillToQuota = 1500 * time.Millisecond
	fillDelete  = 500 * time.Millisecond
)

func (d *DoctorJob) settle() time.Duration {
	if d.Settle == 0 {
		return defaultSettle
	}
	return d.Settle.D()
}

func (d *DoctorJob) window() time.Duration {
	if d.Window == 0 {
		return doctor.DefaultWindow
	}
	return d.Window.D()
}

// Run runs the incident on the cell's cluster: the leader moved, the data
// written, the load started, the timeline begun, then after the settle a
// diagnosis with the members' logs, graded against the expectation, all
// written into the cell (it returns no document). A fault the lab cannot
// inject here (no cgroup to write) makes the cell skipped, with the
// reason.
func (w *DoctorWork) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	return nil, w.run(ctx, t)
}

func (w *DoctorWork) run(ctx context.Context, t *job.Target) error {
	if t.Cluster == nil {
		return errors.New("an incident needs a local setup")
	}
	d, cell := w.Job, t.Cell
	c := t.Cluster
	if d.Leader != "" {
		if err := c.MoveLeader(ctx, d.Leader); err != nil {
			return fmt.Errorf("move the leader to %s: %w", d.Leader, err)
		}
	}
	if d.Fill != nil {
		note, err := fill(ctx, c.Client(), *d.Fill, float64(c.Tuning().QuotaBackendBytes))
		if note != "" {
			cell.Notes = append(cell.Notes, note)
		}
		if err != nil {
			return fmt.Errorf("fill: %w", err)
		}
	}
	// The incident starts now: the logs read are from here on (the
	// leader's move and the fill are the lab's doing, not the incident).
	incident := time.Now()
	loadCtx, stopLoad := context.WithCancel(ctx)
	var loads sync.WaitGroup
	loadErrs := make([]error, len(w.Loads))
	for i, cl := range w.Loads {
		cfg := cl.Config
		cfg.Cluster, cfg.Log, cfg.Engines = c, io.Discard, engines.All()
		cfg.Duration = d.settle() + d.window() + loadSlack
		cfg.Total = 0
		loads.Go(func() {
			_, loadErrs[i] = bench.Run(loadCtx, cfg)
		})
	}
	defer func() {
		stopLoad()
		loads.Wait()
		for i, err := range loadErrs {
			if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				cell.Notes = append(cell.Notes, fmt.Sprintf("background load %d: %s", i+1, oneLine(err)))
			}
		}
	}()
	tl := t.Timeline(d.Faults)
	if tl != nil {
		tl.Start(ctx)
		defer tl.Finish()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d.settle()):
	}
	if tl != nil {
		if why := tl.Unavailable(); why != "" {
			cell.Status, cell.Error = result.CellSkipped, why
			return nil
		}
	}
	logs, err := memberLogs(c)
	if err != nil {
		return err
	}
	defer os.RemoveAll(logs)
	began := time.Now()
	doc, err := doctor.Run(ctx, doctor.Options{Conn: c.Client(), MetricsURLs: c.State().MetricsURLs, Window: d.window(), Logs: logs, Since: time.Since(incident) + time.Second})
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	cell.Notes = append(cell.Notes, fmt.Sprintf("diagnosis took %.1f s", time.Since(began).Seconds()))
	cell.Doctor = doc.Doctor
	member := d.Expect.Member
	if member == "leader" {
		member = resolvedLeader(tl, doc.Doctor)
	}
	in := judgedoctor.Grade(d.Expect.Cause, member, d.Expect.Fires, doc.Doctor)
	cell.Incident = &in
	return nil
}

// resolvedLeader is the member a "leader" step of the timeline hit, else
// the member the diagnosis found leading.
func resolvedLeader(tl job.Timeline, d *result.Doctor) string {
	if tl != nil {
		if m := tl.LeaderHit(); m != "" {
			return m
		}
	}
	for _, m := range d.Members {
		if m.IsLeader {
			return m.Name
		}
	}
	return ""
}

// memberLogs makes a directory of links named after the members to their
// logs, as doctor --logs reads them; the caller removes it.
func memberLogs(c *cluster.Cluster) (string, error) {
	dir, err := os.MkdirTemp("", "etcdlab-incident-logs-")
	if err != nil {
		return "", err
	}
	for _, m := range c.State().Members {
		if err := os.Symlink(m.LogFile, filepath.Join(dir, m.Name+".log")); err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}
