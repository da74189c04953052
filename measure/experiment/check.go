package experiment

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/etcdlab/etcdlab/lab/cluster"
)

// nameRE is what experiment, setup and workload names may be: they end up
// in cell IDs and directory names.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// check validates everything that can be known before running: names,
// setups (checksetup.go: storage, topology, tuning), workloads (each by its
// job, which checks its own fields), faults, published figures and
// comparisons (checkreport.go), profiles, and every profile's plan (each
// cell's work planned by its job: a bench line parsed with bench's parser).
func (s *Spec) check() error {
	if !nameRE.MatchString(s.Name) {
		return s.errorf([]any{"name"}, "%q: use lower case letters, digits, dots, dashes and _", s.Name)
	}
	if len(s.Setups) == 0 {
		return s.errorf([]any{"setups"}, "an experiment needs at least one setup")
	}
	if len(s.Workloads) == 0 {
		return s.errorf([]any{"workloads"}, "an experiment needs at least one workload")
	}
	if err := s.checkNames(); err != nil {
		return err
	}
	for i := range s.Setups {
		if err := s.checkSetup(i); err != nil {
			return err
		}
	}
	for i := range s.Workloads {
		if err := s.checkWorkload(i); err != nil {
			return err
		}
	}
	if err := s.checkSweep(); err != nil {
		return err
	}
	if s.Iterations < 0 {
		return s.errorf([]any{"iterations"}, "must be at least 1, not %d", s.Iterations)
	}
	if err := s.checkFaults(); err != nil {
		return err
	}
	if err := s.checkPublished(); err != nil {
		return err
	}
	if err := s.checkCompare(); err != nil {
		return err
	}
	if err := s.checkMarks(); err != nil {
		return err
	}
	for _, name := range s.ProfileNames() {
		if err := s.checkProfile(name); err != nil {
			return err
		}
		if _, err := s.Plan(name); err != nil {
			return err
		}
	}
	return nil
}

func (s *Spec) checkNames() error {
	setups := make([]string, len(s.Setups))
	for i, st := range s.Setups {
		setups[i] = st.Name
	}
	workloads := make([]string, len(s.Workloads))
	for i, w := range s.Workloads {
		workloads[i] = w.Name
	}
	if err := s.checkUnique("setups", "setup", setups); err != nil {
		return err
	}
	return s.checkUnique("workloads", "workload", workloads)
}

// checkUnique checks the names of a section's entries: well formed, and
// each once.
func (s *Spec) checkUnique(section, what string, names []string) error {
	seen := map[string]bool{}
	for i, n := range names {
		if !nameRE.MatchString(n) {
			return s.errorf([]any{section, i, "name"}, "%q: a %s needs a name of lower case letters, digits, dots, dashes and _", n, what)
		}
		if seen[n] {
			return s.errorf([]any{section, i, "name"}, "a second %s named %q", what, n)
		}
		seen[n] = true
	}
	return nil
}

// checkWorkload checks that workload i is exactly one job of the
// registry, on setups the file has, and has its job check its fields
// (jobcheck.go).
func (s *Spec) checkWorkload(i int) error {
	w := &s.Workloads[i]
	if w.set != 1 {
		return s.errorf([]any{"workloads", i}, "workload %q needs exactly one of %s", w.Name, orList(s.jobs.Names()))
	}
	for j, name := range w.Setups {
		if s.setup(name) == nil {
			return s.errorf([]any{"workloads", i, "setups", j}, "no setup named %q", name)
		}
	}
	return s.jobs.Lookup(w.Job).Check(&checker{s: s, i: i}, w.Fields)
}

// placeholders lists the sweep's parameters workload w uses.
func (s *Spec) placeholders(w *Workload) []string {
	if j := s.jobs.Lookup(w.Job); j != nil {
		return j.Placeholders(w.Fields)
	}
	return nil
}

// checkSweep refuses parameters no workload uses.
func (s *Spec) checkSweep() error {
	for _, p := range s.Sweep {
		used := false
		for i := range s.Workloads {
			used = used || slices.Contains(s.placeholders(&s.Workloads[i]), p.Name)
		}
		if !used {
			return s.errorf([]any{"sweep", p.Name}, "no workload uses {%s}", p.Name)
		}
	}
	return nil
}

// orList writes names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// actionNames lists the faults a step may name, for a message: "kill,
// ... or alarm-disarm": the registry's faults that take a member or the
// cluster, in its order.
func actionNames() string {
	var names []string
	for _, f := range cluster.Faults() {
		if a := f.About(); a.TakesMember() || a.OnCluster() {
			names = append(names, a.Name)
		}
	}
	return orList(names)
}

// etcdActionNames lists the faults a step may give an etcd, for a
// message: "upgrade or downgrade".
func etcdActionNames() string {
	var names []string
	for _, f := range cluster.Faults() {
		if a := f.About(); a.Etcd {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, " or ")
}

// withArticle is an action with its indefinite article ("an upgrade").
func withArticle(action string) string {
	if strings.ContainsRune("aeiou", rune(action[0])) {
		return "an " + action
	}
	return "a " + action
}

// actions are a fault's actions, by name.
func (f *Fault) actions() map[string]string { return f.Actions }

// Action returns the fault's action and target: the first word of its
// value ("cpulimit: m1 0.03" targets m1).
func (f *Fault) Action() (action, target string) {
	for k, v := range f.actions() {
		words := strings.Fields(v)
		if len(words) == 0 {
			return k, ""
		}
		return k, words[0]
	}
	return "", ""
}

// Args are the fault's arguments after its target ("cpulimit: m1 0.03":
// the cores), as `etcdlab cluster fault` takes them.
func (f *Fault) Args() []string {
	for _, v := range f.actions() {
		if words := strings.Fields(v); len(words) > 1 {
			return words[1:]
		}
	}
	return nil
}

// checkFaults checks the timeline against every setup: faults need local
// setups, and their targets must be members of each.
func (s *Spec) checkFaults() error {
	return s.checkTimeline([]any{"faults"}, s.Faults, s.Setups)
}

// checkTimeline checks a fault timeline (the file's, at path, or an
// incident's) against the setups it runs on.
func (s *Spec) checkTimeline(path []any, faults []Fault, setups []Setup) error {
	if len(faults) == 0 {
		return nil
	}
	at := func(more ...any) []any { return append(slices.Clone(path), more...) }
	for i, st := range setups {
		if st.Live() {
			return s.errorf(at(), "faults need local setups: setup %q (setups[%d]) is a live cluster, which etcdlab does not break", st.Name, i)
		}
	}
	for i := range faults {
		f := &faults[i]
		acts := f.actions()
		if len(acts) != 1 {
			return s.errorf(at(i), "a fault needs exactly one of %s, or %s (an etcd)", actionNames(), etcdActionNames())
		}
		action, target := f.Action()
		if a := about(action); a.Etcd {
			fl, err := cluster.LookupFault(action)
			if err == nil {
				err = cluster.CheckFault(fl, append([]string{target}, f.Args()...))
			}
			if err != nil {
				return s.errorf(at(i, action), "%v", err)
			}
			if f.For > 0 && a.Undo == "" {
				return s.errorf(at(i, "for"), "for undoes a kill, pause or partition; %s has none: add a later upgrade step", withArticle(action))
			}
			continue
		}
		if a := about(action); a.OnCluster() {
			if target != cluster.ClusterTarget {
				return s.errorf(at(i, action), "%s is the cluster's, not a member's: write %s: %s, then its arguments", action, action, cluster.ClusterTarget)
			}
			fl, err := cluster.LookupFault(action)
			if err == nil {
				err = cluster.CheckFault(fl, f.Args())
			}
			if err != nil {
				return s.errorf(at(i, action), "%v", err)
			}
			if f.For > 0 {
				return s.errorf(at(i, "for"), "for undoes a kill, pause or partition; %s has no undo", action)
			}
			continue
		}
		if args := f.Args(); len(args) > 0 {
			fl, err := cluster.LookupFault(action)
			if err == nil {
				err = cluster.CheckFault(fl, append([]string{"m1"}, args...))
			}
			if err != nil {
				return s.errorf(at(i, action), "%v", err)
			}
		}
		if f.For > 0 && isUndo(action) {
			return s.errorf(at(i, "for"), "for undoes a kill, pause or partition; %s is already an undo", action)
		}
		if target == "follower" && isUndo(action) {
			return s.errorf(at(i, action), "%s follower: name the member (m1, m2, ...), or give the fault that broke it a for", action)
		}
		if target == "leader" || target == "follower" {
			continue
		}
		for _, st := range setups {
			o, _ := s.clusterOptions(&st, setupEnv{})
			if n := o.Members; !isMember(target, n) {
				return s.errorf(at(i, action), "%q is not a member of setup %q (m1 to m%d), leader or follower", target, st.Name, n)
			}
		}
	}
	return nil
}

func isMember(name string, n int) bool {
	for i := 1; i <= n; i++ {
		if name == fmt.Sprintf("m%d", i) {
			return true
		}
	}
	return false
}

// ProfileNames lists the file's profiles, sorted; "full" (the file as
// written) is always one.
func (s *Spec) ProfileNames() []string {
	names := []string{"full"}
	for n := range s.Profiles {
		if n != "full" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (s *Spec) checkProfile(name string) error {
	p, ok := s.Profiles[name]
	if !ok {
		return nil
	}
	if !nameRE.MatchString(name) {
		return s.errorf([]any{"profiles", name}, "profile %q: use lower case letters, digits, dots, dashes and _", name)
	}
	for _, sp := range p.Sweep {
		if _, ok := s.Sweep.Lookup(sp.Name); !ok {
			return s.errorf([]any{"profiles", name, "sweep", sp.Name}, "%q is not swept by the file (sweep: %s)", sp.Name, strings.Join(s.sweepNames(), ", "))
		}
	}
	for i, st := range p.Setups {
		if s.setup(st) == nil {
			return s.errorf([]any{"profiles", name, "setups", i}, "no setup %q", st)
		}
	}
	for i, w := range p.Workloads {
		if !slices.ContainsFunc(s.Workloads, func(x Workload) bool { return x.Name == w }) {
			return s.errorf([]any{"profiles", name, "workloads", i}, "no workload %q", w)
		}
	}
	if p.Iterations < 0 {
		return s.errorf([]any{"profiles", name, "iterations"}, "must be at least 1, not %d", p.Iterations)
	}
	return nil
}

func (s *Spec) sweepNames() []string {
	var out []string
	for _, p := range s.Sweep {
		out = append(out, p.Name)
	}
	return out
}
