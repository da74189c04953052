package job

// Registry is the table of jobs an experiment file may name, in the order
// messages list them. It is built by a function (measure/jobs.Registry),
// never held in a package variable, and not modified once built.
type Registry []Job

// Lookup returns the job called name, or nil.
func (r Registry) Lookup(name string) Job {
	for _, j := range r {
		if j.Name() == name {
			return j
		}
	}
	return nil
}

// Names lists the jobs' names, in order.
func (r Registry) Names() []string {
	out := make([]string, len(r))
	for i, j := range r {
		out[i] = j.Name()
	}
	return out
}

// LoadBudget is a job whose work can send its load from a process of its
// own in a CPU budget (a setup's load_cpus).
type LoadBudget interface {
	ValidateLoadCPUs(cores float64) error
}

// ValidateLoadCPUs checks a load budget with the first job that takes one;
// ok is false when no job does.
func (r Registry) ValidateLoadCPUs(cores float64) (ok bool, err error) {
	for _, j := range r {
		if b, is := j.(LoadBudget); is {
			return true, b.ValidateLoadCPUs(cores)
		}
	}
	return false, nil
}
