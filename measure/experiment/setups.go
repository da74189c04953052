package experiment

import "slices"

// setupsOf are the setups workload w runs on.
func (s *Spec) setupsOf(w *Workload) []Setup {
	if len(w.Setups) == 0 {
		return s.Setups
	}
	var out []Setup
	for _, st := range s.Setups {
		if slices.Contains(w.Setups, st.Name) {
			out = append(out, st)
		}
	}
	return out
}

// setup is the setup called name, or nil.
func (s *Spec) setup(name string) *Setup {
	for i := range s.Setups {
		if s.Setups[i].Name == name {
			return &s.Setups[i]
		}
	}
	return nil
}

// inProfile reports whether setup name runs under profile prof: a
// profile that names setups runs only those.
func inProfile(prof Profile, name string) bool {
	return len(prof.Setups) == 0 || slices.Contains(prof.Setups, name)
}

// workloadInProfile reports whether workload name runs under profile
// prof: a profile that names workloads runs only those.
func workloadInProfile(prof Profile, name string) bool {
	return len(prof.Workloads) == 0 || slices.Contains(prof.Workloads, name)
}
