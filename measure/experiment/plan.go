package experiment

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/result"
)

// Plan is what an experiment runs under one profile: its cells, in the
// order they run (setup by setup, then workload, then the sweep's values
// with the first parameter outermost). A Plan is plain data.
type Plan struct {
	Spec    *Spec
	Profile string
	Cells   []Cell
	// Published are the article's figures (result form).
	Published []result.Published
	// Builds is the part of the estimate that builds etcd versions the
	// build cache does not hold (once each, at the first cell of the
	// first setup that runs it): a cost of this machine's cache, not of
	// the profile.
	Builds time.Duration
}

// Cell is one planned cell of the matrix.
type Cell struct {
	// ID is "setup/workload" followed by "/name=value" for each swept
	// parameter the workload uses.
	ID       string
	Setup    *Setup
	Workload *Workload
	// Params are the cell's coordinates: setup, workload and its swept
	// values.
	Params map[string]string
	// Work is what the cell runs: its workload's job planned under the
	// profile (measure/jobs: a bench cell's is a *jobs.BenchWork, its line
	// parsed).
	Work job.Work
	// Estimate is how long the cell should take, its overhead included
	// (see Estimate).
	Estimate time.Duration
}

// Estimate is the plan's estimated time: the sum of its cells'.
func (p *Plan) Estimate() time.Duration {
	var d time.Duration
	for _, c := range p.Cells {
		d += c.Estimate
	}
	return d
}

// Plan expands the matrix under profile ("full" or "": the file as
// written). Each bench cell's line is parsed with bench's parser; errors
// are invalid-input errors with the file's line numbers.
func (s *Spec) Plan(profile string) (*Plan, error) {
	if profile == "" {
		profile = "full"
	}
	prof, ok := s.Profiles[profile]
	if !ok && profile != "full" {
		return nil, s.errorf([]any{"profiles"}, "no profile %q (profiles: %s)", profile, strings.Join(s.ProfileNames(), ", "))
	}
	sweep := s.sweepFor(prof)
	overrides := s.overridesFor(prof)
	applied := map[string]bool{}
	p := &Plan{Spec: s, Profile: profile}
	var err error
	built := map[string]bool{} // etcd versions whose build an earlier cell's estimate counts
	for si := range s.Setups {
		st := &s.Setups[si]
		if !inProfile(prof, st.Name) {
			continue
		}
		first := true
		for wi := range s.Workloads {
			w := &s.Workloads[wi]
			if len(w.Setups) > 0 && !slices.Contains(w.Setups, st.Name) || !workloadInProfile(prof, w.Name) {
				continue
			}
			for _, combo := range combinations(sweep, s.placeholders(w)) {
				c := Cell{Setup: st, Workload: w, Params: map[string]string{"setup": st.Name, "workload": w.Name}}
				maps.Copy(c.Params, st.Params)
				id := []string{st.Name, w.Name}
				for _, kv := range combo {
					c.Params[kv[0]] = kv[1]
					id = append(id, kv[0]+"="+kv[1])
				}
				c.ID = strings.Join(id, "/")
				if c.Work, err = s.planWork(&c, wi, profile, prof, overrides, applied); err != nil {
					return nil, err
				}
				c.Estimate = s.estimate(&c, st.Reuse && !first)
				if first {
					b := s.buildEstimate(st, built)
					c.Estimate += b
					p.Builds += b
				}
				first = false
				p.Cells = append(p.Cells, c)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(prof.Set)) {
		if !applied[k] {
			return nil, s.errorf([]any{"profiles", profile, "set", k}, "no bench workload has --%s", k)
		}
	}
	for _, pub := range s.Published {
		p.Published = append(p.Published, result.Published{Match: maps.Clone(pub.Match), Metric: pub.Metric, Value: pub.Value, Note: pub.Note, Requests: pub.Requests, Series: pub.Series})
	}
	return p, nil
}

// planWork has workload wi's job plan cell c under the profile; the job
// notes in applied each override it applied.
func (s *Spec) planWork(c *Cell, wi int, profile string, prof Profile, overrides [][2]string, applied map[string]bool) (job.Work, error) {
	w := c.Workload
	return s.jobs.Lookup(w.Job).Plan(job.Cell{
		ID: c.ID, Params: c.Params, Profile: profile, Overrides: overrides, Applied: applied,
		DiskRuntime: prof.DiskRuntime.D(), LevelDuration: prof.LevelDuration.D(),
		Errorf: func(path []any, format string, args ...any) error {
			return s.errorf(append([]any{"workloads", wi, w.Job}, path...), format, args...)
		},
		Steps: func(job.Faults) []string {
			var out []string
			for _, f := range w.faults {
				a, t := f.Action()
				out = append(out, a+" "+t)
			}
			return out
		},
	}, w.Fields)
}

// sweepFor is the file's sweep with the profile's values in place.
func (s *Spec) sweepFor(p Profile) Sweep {
	out := make(Sweep, len(s.Sweep))
	for i, sp := range s.Sweep {
		out[i] = sp
		if v, ok := p.Sweep.Lookup(sp.Name); ok {
			out[i].Values = v
		}
	}
	return out
}

// overridesFor lists the bench flags every bench line gets under profile
// p, in the order they apply: warmup and iterations (the profile's, else
// the file's), then the profile's set, by flag name.
func (s *Spec) overridesFor(p Profile) [][2]string {
	var out [][2]string
	if w := cmp(p.Warmup, s.Warmup); w != "" {
		out = append(out, [2]string{"warmup", w})
	}
	if it := cmp(p.Iterations, s.Iterations); it != 0 {
		out = append(out, [2]string{"iterations", strconv.Itoa(it)})
	}
	for _, k := range slices.Sorted(maps.Keys(p.Set)) {
		out = append(out, [2]string{k, p.Set[k]})
	}
	return out
}

// cmp returns the first of a, b that is not the zero value.
func cmp[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// combinations lists every combination of the values of the parameters
// in names (in the sweep's order, the first outermost) as name/value
// pairs; one empty combination when names is empty.
func combinations(sweep Sweep, names []string) [][][2]string {
	out := [][][2]string{nil}
	for _, p := range sweep {
		if !slices.Contains(names, p.Name) {
			continue
		}
		var next [][][2]string
		for _, prefix := range out {
			for _, v := range p.Values {
				next = append(next, append(slices.Clone(prefix), [2]string{p.Name, v}))
			}
		}
		out = next
	}
	return out
}

// Describe is a one-line description of setup st, for plans and logs: a
// local setup's members, network, storage and TLS as its cluster will
// have them.
func (s *Spec) Describe(st *Setup) string {
	if st.Live() {
		return "live cluster " + strings.Join(st.Endpoints, ",")
	}
	o, err := s.clusterOptions(st, setupEnv{})
	if err != nil {
		return err.Error()
	}
	parts := []string{fmt.Sprintf("%d members", o.Members)}
	if o.Members == 1 {
		parts[0] = "1 member"
	}
	if st.Topology != "" {
		parts = append(parts, "topology "+st.Topology)
	}
	if st.TopologySpec != nil {
		if t, err := s.topologyOf(st); err == nil && t.Description != "" {
			parts = append(parts, t.Description)
		} else {
			parts = append(parts, "its own topology")
		}
	}
	switch {
	case o.FsyncDelay != nil || o.ReadDelay != nil || o.WriteDelay != nil:
		var slowed []string
		for _, d := range []struct {
			op string
			d  *slowfs.Delay
		}{{"fsync", o.FsyncDelay}, {"reads", o.ReadDelay}, {"O_DIRECT writes", o.WriteDelay}} {
			if d.d != nil {
				slowed = append(slowed, d.op+" +"+d.d.String())
			}
		}
		parts = append(parts, "storage slowed ("+strings.Join(slowed, ", ")+")")
	case o.BaseDir == topology.TmpfsDir:
		parts = append(parts, "storage tmpfs")
	default:
		parts = append(parts, "storage "+cmp(st.Storage, StorageDisk))
	}
	if o.Links != nil && st.Topology == "" && st.TopologySpec == nil {
		parts = append(parts, "emulated network")
	}
	if st.TLS {
		parts = append(parts, "TLS")
	}
	if o.Etcd != "" {
		parts = append(parts, "etcd "+o.Etcd)
	}
	for _, m := range slices.Sorted(maps.Keys(o.MemberEtcd)) {
		parts = append(parts, m+" on etcd "+o.MemberEtcd[m])
	}
	if o.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%s per member (a cgroup quota)", coresWord(o.CPUs)))
	}
	if len(o.MemberCPUs) > 0 {
		var b []string
		for _, m := range slices.Sorted(maps.Keys(o.MemberCPUs)) {
			b = append(b, fmt.Sprintf("%s %g", m, o.MemberCPUs[m]))
		}
		parts = append(parts, "cores "+strings.Join(b, ", "))
	}
	if o.Leader != "" {
		parts = append(parts, o.Leader+" leads every run")
	}
	if st.LoadCPUs > 0 {
		parts = append(parts, "the load generator "+coresWord(st.LoadCPUs)+" in a process of its own")
	}
	if st.Reuse {
		parts = append(parts, "one cluster for all its cells")
	}
	return strings.Join(parts, ", ")
}

// coresWord renders a budget: "1 core", "0.2 cores".
func coresWord(c float64) string {
	if c == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", c)
}

// SetSweep replaces the values of the swept parameter name, in the file
// and in every profile (experiment run --sweep): how a person runs a
// built-in on values of their own, such as the replay's profile file. It
// is an invalid-input error when the file sweeps no such parameter or
// values is empty.
func (s *Spec) SetSweep(name string, values []string) error {
	i := slices.IndexFunc(s.Sweep, func(p Param) bool { return p.Name == name })
	if i < 0 {
		var names []string
		for _, p := range s.Sweep {
			names = append(names, p.Name)
		}
		if len(names) == 0 {
			return invalid.Errorf("--sweep %s: %s sweeps no parameter", name, s.Name)
		}
		return invalid.Errorf("--sweep %s: %s sweeps no %q (it sweeps %s)", name, s.Name, name, strings.Join(names, ", "))
	}
	if len(values) == 0 || slices.Contains(values, "") {
		return invalid.Errorf("--sweep %s: give one value or more (NAME=V1,V2)", name)
	}
	s.Sweep[i].Values = slices.Clone(values)
	for k, prof := range s.Profiles {
		for j := range prof.Sweep {
			if prof.Sweep[j].Name == name {
				prof.Sweep[j].Values = slices.Clone(values)
			}
		}
		s.Profiles[k] = prof
	}
	return nil
}
