package jobs

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// Maintenance is the maintenance job: a workload's maintenance: applies
// a maintenance policy to a fresh local cluster under a steady load and
// records what each operation cost (MaintenanceJob; maintrun.go runs it).
type Maintenance struct{}

// Name is the workload's key.
func (Maintenance) Name() string { return "maintenance" }

// Fields is a *MaintenanceJob.
func (Maintenance) Fields() any { return (*MaintenanceJob)(nil) }

// Placeholders: a policy takes no sweep values.
func (Maintenance) Placeholders(any) []string { return nil }

// Check checks the policy against every local setup it runs on, and its
// load lines.
func (Maintenance) Check(c job.Checker, fields any) error {
	m := fields.(*MaintenanceJob)
	if path, err := m.check(); err != nil {
		return c.Errorf(path, "%v", err)
	}
	for _, st := range c.Setups() {
		if !st.Runs {
			continue
		}
		if st.Live {
			return c.Errorf(nil, "maintenance runs on a local setup; setup %q is a live cluster, which etcdlab does not defragment", st.Name)
		}
		if path, err := m.checkMembers(st.Members); err != nil {
			return c.Errorf(path, "setup %q: %v", st.Name, err)
		}
	}
	for j, l := range m.Load {
		words, err := splitLine(l)
		if err == nil {
			_, err = parseBench(words)
		}
		if err != nil {
			return c.Errorf([]any{"load", j}, "%v", err)
		}
	}
	return nil
}

// Plan applies the profile's set (rounds, pause, settle) and parses the
// load lines.
func (Maintenance) Plan(p job.Cell, fields any) (job.Work, error) {
	m := *fields.(*MaintenanceJob)
	for _, o := range p.Overrides {
		var err error
		switch o[0] {
		case "rounds": // a one-round cell (a curve's point) stays one round
			var n int
			if n, err = strconv.Atoi(o[1]); err == nil && m.Rounds > 1 {
				m.Rounds = n
			}
		case "pause", "settle":
			var d time.Duration
			d, err = time.ParseDuration(o[1])
			switch {
			case err == nil && d < 0:
				err = fmt.Errorf("negative")
			case err != nil:
			case o[0] == "settle":
				m.Settle = job.Duration(d)
			case m.Pause > 0: // a back-to-back policy stays back to back
				m.Pause = job.Duration(d)
			}
		default:
			continue
		}
		if err != nil {
			return nil, p.Errorf(nil, "cell %s (profile %s): %s: %q is not a valid value", p.ID, p.Profile, o[0], o[1])
		}
		p.Applied[o[0]] = true
	}
	if m.Rounds < 0 || m.Rounds > maxMaintRounds {
		return nil, p.Errorf(nil, "cell %s (profile %s): rounds: %d: want 1 to %d", p.ID, p.Profile, m.Rounds, maxMaintRounds)
	}
	w := &MaintenanceWork{Job: &m}
	for li, l := range m.Load {
		words, err := splitLine(l)
		if err != nil {
			return nil, p.Errorf([]any{"load", li}, "%v", err)
		}
		cl, err := parseBench(words)
		if err != nil {
			return nil, p.Errorf([]any{"load", li}, "%v", err)
		}
		w.Loads = append(w.Loads, cl)
	}
	return w, nil
}

// MaintenanceWork is a maintenance cell's work: the policy under the
// profile, and its load lines parsed.
type MaintenanceWork struct {
	Job   *MaintenanceJob
	Loads []bench.CommandLine
}

// Command says the policy, its data and its load.
func (w *MaintenanceWork) Command() string {
	m := w.Job
	parts := []string{m.policy()}
	switch {
	case m.DB != "" && m.Fragmentation > 0:
		parts = append(parts, fmt.Sprintf("db %s %.0f%% free", m.DB, 100*m.Fragmentation))
	case m.DB != "":
		parts = append(parts, "db "+m.DB)
	}
	if m.op() == result.OpCompact {
		parts = append(parts, fmt.Sprintf("%d versions", m.versions()))
	}
	if len(m.Load) > 0 {
		parts = append(parts, "load on each member: "+strings.Join(m.Load, "; "))
	}
	if m.rounds() > 1 {
		parts = append(parts, fmt.Sprintf("%d rounds", m.rounds()))
	}
	return "maintenance " + strings.Join(parts, ", ")
}

// What the job's steps cost besides its waits, from its runs on this
// machine (docs/maintenance.md): writing the data (tmpfs: about 60 MB/s
// with the fsyncs of three members; a slower disk more), a
// defragmentation (about 1 s a GiB in memory), a compaction's history.
const (
	maintFillPerMiB    = 20 * time.Millisecond
	maintOpPerMiB      = 4 * time.Millisecond
	maintPerVersion    = 20 * time.Microsecond
	maintCatchUpCost   = 20 * time.Second
	maintStartAndStop  = 3 * time.Second
	maintMembersPolicy = 3
)

// Estimate is the fill, then per round the fragmentation, the waits and
// the operations.
func (w *MaintenanceWork) Estimate(job.Env) time.Duration {
	return w.Job.estimate()
}

func (m *MaintenanceJob) estimate() time.Duration {
	mib := time.Duration(m.dbBytes() >> 20)
	e := maintStartAndStop + mib*maintFillPerMiB
	ops := 1
	if o := m.order(); o == OrderLeaderLast || o == OrderLeaderFirst {
		ops = maintMembersPolicy
	}
	round := m.settle() + m.tail() + time.Duration(ops-1)*m.Pause.D()
	switch m.op() {
	case result.OpCompact:
		round += time.Duration(m.versions()) * maintPerVersion
	case result.OpCatchUp:
		round += time.Duration(ops) * maintCatchUpCost
	default:
		round += time.Duration(m.Fragmentation*float64(mib))*2*maintFillPerMiB + time.Duration(ops)*mib*maintOpPerMiB
	}
	return e + time.Duration(m.rounds())*round
}
