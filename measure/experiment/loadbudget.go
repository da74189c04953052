package experiment

import "github.com/etcdlab/etcdlab/invalid"

// The load generator's CPU budget (a setup's load_cpus, Options.LoadCPUs):
// a local setup's bench cells send their load from a process of their own
// (one agent, agents.Local) in a cgroup with that CPU quota, while this
// process keeps the cluster and its emulated links and disks outside the
// budget (measure/jobs, benchbudget.go: job.Target.LoadCPUs). Disk, check
// and doctor cells are not affected. Which budgets are valid is the
// registry's job that takes one (job.LoadBudget).

// checkLoadCPUs checks setup i's load_cpus: a number of cores, on a
// local setup, in a file without a fault timeline (the timeline runs in
// the process that sends the load).
func (s *Spec) checkLoadCPUs(i int) error {
	st := &s.Setups[i]
	at := []any{"setups", i, "load_cpus"}
	if st.LoadCPUs == 0 {
		return nil
	}
	if st.Live() {
		return s.errorf(at, "is for local setups; against a live cluster run bench --endpoints --load-cpus")
	}
	if ok, err := s.jobs.ValidateLoadCPUs(st.LoadCPUs); !ok || err != nil {
		return s.errorf(at, "%g: want a number of cores from 0.01 (0.5, 2)", st.LoadCPUs)
	}
	if len(s.Faults) > 0 {
		return s.errorf(at, "and faults cannot go together: the fault timeline runs in the process that sends the load, which load_cpus moves out of etcdlab")
	}
	return nil
}

// checkLoadOverride checks Options.LoadCPUs against the plan.
func checkLoadOverride(p *Plan, cores float64) error {
	if cores == 0 {
		return nil
	}
	if _, err := p.Spec.jobs.ValidateLoadCPUs(cores); err != nil {
		return err
	}
	if len(p.Spec.Faults) > 0 {
		return invalid.Errorf("{LoadCPUs} and the experiment's faults cannot go together: the fault timeline runs in the process that sends the load")
	}
	return nil
}

// loadCPUs is the load budget of a cell's setup: Options.LoadCPUs on a
// local setup, else its load_cpus; 0 for none.
func (r *runner) loadCPUs(st *Setup) float64 {
	if st.Live() {
		return 0
	}
	if r.o.LoadCPUs > 0 {
		return r.o.LoadCPUs
	}
	return st.LoadCPUs
}

// LoadBudgeted reports whether a local setup of the plan's cells has a
// load budget (load_cpus).
func (p *Plan) LoadBudgeted() bool {
	for _, c := range p.Cells {
		if c.Setup.LoadCPUs > 0 && !c.Setup.Live() {
			return true
		}
	}
	return false
}
