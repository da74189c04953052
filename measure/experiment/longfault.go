package experiment

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/result"
)

// Long-running faults (cluster.About.Timeout: upgrade and downgrade, which
// move every member's etcd) and faults with a preparation
// (cluster.Preparer: an etcd version built) go through the same timeline
// as every other fault, with three differences that belong to their
// capabilities, not to their names. A prepared fault's arguments are
// prepared before the measured run (prepare), so no build falls inside
// it. A long-running fault starts at its time in a goroutine of its own,
// so the steps after it keep their times; two never overlap (the later
// waits for the earlier, and its event says how late it began). And the
// cell's end waits for one in progress up to its declared timeout, then
// cancels it (finish).

// prepare prepares the arguments of every step whose fault has a
// preparation (cluster.Preparer), before the measured run; an etcd's
// path (About.Etcd) is taken relative to dir, the file's directory. An
// error names the step.
func (t *timeline) prepare(ctx context.Context, dir string) error {
	for i := range t.steps {
		s := &t.steps[i]
		f, err := cluster.LookupFault(s.action)
		if err != nil {
			continue
		}
		p, ok := f.(cluster.Preparer)
		if !ok {
			continue
		}
		args := append([]string{s.target}, s.args...)
		if f.About().Etcd {
			args[0] = topology.EtcdIn(args[0], dir)
		}
		r, err := p.Prepare(ctx, cluster.Request{Args: args}, nil)
		if err != nil {
			return fmt.Errorf("%s at %s to %s: %w", s.action, s.at, s.target, err)
		}
		s.prepared = r.Args
	}
	return nil
}

// longGrace is how long finish waits for the long-running faults in
// progress: the longest timeout the timeline's faults declare.
func (t *timeline) longGrace() time.Duration {
	var d time.Duration
	for _, s := range t.steps {
		d = max(d, about(s.action).Timeout)
	}
	return d
}

// runLong applies the long-running fault of step s to name (a member, or
// the fault's etcd), recorded in event idx, under longCtx; it holds
// longMu throughout, so such faults run one after the other. It runs on
// a goroutine of its own (long).
func (t *timeline) runLong(idx int, s step, name string) {
	defer t.long.Done()
	t.longMu.Lock()
	defer t.longMu.Unlock()
	began := time.Now()
	t.update(idx, func(e *result.FaultEvent) {
		if late := began.Sub(e.Time); late > time.Second {
			e.Detail = join(e.Detail, fmt.Sprintf("began %.1fs late: the %s before it was still running", late.Seconds(), t.longBefore(idx)))
		}
		e.Time = began.UTC()
	})
	r := faultRequest(about(s.action), name, s.args)
	if s.prepared != nil {
		r.Args = s.prepared
	}
	var out cluster.Outcome
	f, err := cluster.LookupFault(s.action)
	if err == nil {
		if lf, ok := f.(cluster.LongFault); ok {
			out, err = lf.Run(t.longCtx, t.c, r)
		} else {
			err = f.Apply(t.c, r)
		}
	}
	t.update(idx, func(e *result.FaultEvent) {
		e.Upgrade = out.Upgrade
		e.Maintenance = out.Maintenance
		e.Detail = join(e.Detail, out.Detail)
		if err != nil {
			e.Error = oneLine(err)
		}
	})
}

// longBefore names the long-running fault recorded last before event idx
// ("upgrade").
func (t *timeline) longBefore(idx int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := idx - 1; i >= 0; i-- {
		if a := about(t.events[i].Action); a.LongRunning() {
			return a.Name
		}
	}
	return "long-running fault"
}

// join joins two phrases with "; ", either may be "".
func join(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}
