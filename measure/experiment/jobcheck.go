package experiment

import (
	"slices"

	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// checker is the file around workload i, as its job checks its fields
// (job.Checker). It is used by one goroutine, during Parse.
type checker struct {
	s *Spec
	i int
}

// at is path below the workload's job key.
func (c *checker) at(path []any) []any {
	return append([]any{"workloads", c.i, c.s.Workloads[c.i].Job}, path...)
}

func (c *checker) Errorf(path []any, format string, args ...any) error {
	return c.s.errorf(c.at(path), format, args...)
}

func (c *checker) Setups() []job.Setup {
	w := &c.s.Workloads[c.i]
	out := make([]job.Setup, len(c.s.Setups))
	for i := range c.s.Setups {
		st := &c.s.Setups[i]
		out[i] = job.Setup{Name: st.Name, Index: i, Live: st.Live(), Runs: len(w.Setups) == 0 || slices.Contains(w.Setups, st.Name)}
		if !st.Live() {
			o, _ := c.s.clusterOptions(st, setupEnv{})
			out[i].Members = o.Members
		}
	}
	return out
}

func (c *checker) Swept(param string) bool {
	_, ok := c.s.Sweep.Lookup(param)
	return ok
}

// CheckFaults checks the workload's own timeline (read at Parse) against
// the setups it runs on.
func (c *checker) CheckFaults(path []any, _ job.Faults) error {
	w := &c.s.Workloads[c.i]
	return c.s.checkTimeline(c.at(path), w.faults, c.s.setupsOf(w))
}
