package experiment

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// nameRE is what experiment, setup and workload names may be: they end up
// in cell IDs and directory names.
var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// check validates everything that can be known before running: names,
// setups (storage, topology, tuning), workloads, faults, published
// figures, profiles, and every profile's plan (each cell's bench line
// parsed with bench's parser).
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

// checkSetup checks setup i: a live setup has only connection fields; a
// local one builds valid cluster options.
func (s *Spec) checkSetup(i int) error {
	st := &s.Setups[i]
	at := func(field string) []any { return []any{"setups", i, field} }
	for _, k := range slices.Sorted(maps.Keys(st.Params)) {
		_, swept := s.Sweep.Lookup(k)
		if !paramName.MatchString(k) || swept || k == "setup" || k == "workload" || k == "cell" || k == "id" {
			return s.errorf([]any{"setups", i, "params", k}, "%q: a param is lower case letters, digits and _, and not setup, workload or a swept parameter", k)
		}
	}
	if err := s.checkLoadCPUs(i); err != nil {
		return err
	}
	if st.Live() {
		for _, f := range []struct {
			name string
			set  bool
		}{{"members", st.Members != 0}, {"storage", st.Storage != ""}, {"topology", st.Topology != "" || st.TopologySpec != nil}, {"tls", st.TLS},
			{"etcd", !st.Etcd.zero()}, {"cpus", st.CPUs != 0 || len(st.MemberCPUs) > 0}, {"leader", st.Leader != ""}, {"reuse", st.Reuse}, {"port_base", st.PortBase != 0}} {
			if f.set {
				return s.errorf(at(f.name), "a live setup (endpoints) takes only connection fields (cacert, cert, key, user, password_file, metrics_urls) and member_cores")
			}
		}
		if st.MemberCores < 0 {
			return s.errorf(at("member_cores"), "%g: want the cores of each member's machine, or leave it out", st.MemberCores)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		set  bool
	}{{"cacert", st.CACert != ""}, {"cert", st.Cert != ""}, {"key", st.Key != ""}, {"user", st.User != ""},
		{"password_file", st.PasswordFile != ""}, {"metrics_urls", len(st.MetricsURLs) > 0}, {"insecure_skip_tls_verify", st.InsecureSkipVerify},
		{"member_cores", st.MemberCores != 0}} {
		if f.set {
			return s.errorf(at(f.name), "%s is for live setups (endpoints); a local setup's cluster is etcdlab's", f.name)
		}
	}
	_, err := s.clusterOptions(st, setupEnv{})
	if err != nil {
		var se *setupError
		if asSetupError(err, &se) {
			return s.errorf(at(se.field), "%s", se.msg)
		}
		return s.errorf([]any{"setups", i}, "%s", err.Error())
	}
	return nil
}

// checkWorkload checks that workload i is exactly one thing, and the disk
// and check options.
func (s *Spec) checkWorkload(i int) error {
	w := &s.Workloads[i]
	kinds := 0
	for _, set := range []bool{w.Bench != "", w.Disk != nil, w.Check != nil, w.Doctor != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return s.errorf([]any{"workloads", i}, "workload %q needs exactly one of bench, disk, check or doctor", w.Name)
	}
	for j, name := range w.Setups {
		if s.setup(name) == nil {
			return s.errorf([]any{"workloads", i, "setups", j}, "no setup named %q", name)
		}
	}
	switch {
	case w.Doctor != nil:
		return s.checkDoctor(i)
	case w.Disk != nil:
		for j, st := range s.Setups {
			if st.Live() {
				return s.errorf([]any{"workloads", i, "disk"}, "the disk job runs on a local setup's storage; setup %q (setups[%d]) is a live cluster", st.Name, j)
			}
		}
		if _, err := diskOptions(w.Disk, "."); err != nil {
			return s.errorf([]any{"workloads", i, "disk"}, "%s", errText(err, yamlDiskName))
		}
	case w.Check != nil:
		for _, l := range []struct{ field, v string }{{"load", w.Check.Load}, {"max_load", w.Check.MaxLoad}} {
			if l.v != "" && !slices.Contains([]string{"s", "m", "l", "xl"}, l.v) {
				return s.errorf([]any{"workloads", i, "check", l.field}, "load level must be s, m, l or xl, not %q", l.v)
			}
		}
	default:
		if _, err := splitLine(w.Bench); err != nil {
			return s.errorf([]any{"workloads", i, "bench"}, "%v", err)
		}
		for _, name := range placeholders(w.Bench) {
			if _, ok := s.Sweep.Lookup(name); !ok {
				return s.errorf([]any{"workloads", i, "bench"}, "{%s} has no values: add %s to sweep", name, name)
			}
		}
	}
	return nil
}

// checkSweep refuses parameters no workload uses.
func (s *Spec) checkSweep() error {
	for _, p := range s.Sweep {
		used := false
		for _, w := range s.Workloads {
			used = used || slices.Contains(placeholders(w.Bench), p.Name)
		}
		if !used {
			return s.errorf([]any{"sweep", p.Name}, "no workload uses {%s}", p.Name)
		}
	}
	return nil
}

// actionNames lists the faults a step may name, for a message: "kill,
// ... or heal": the registry's faults that take a member, in its order.
func actionNames() string {
	var names []string
	for _, f := range cluster.Faults() {
		if a := f.About(); a.TakesMember() {
			names = append(names, a.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
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

// checkPublished checks each figure's metric and that its match names
// known params with values some cell has.
func (s *Spec) checkPublished() error {
	for i, p := range s.Published {
		if !slices.Contains(result.PublishedMetrics(), p.Metric) {
			return s.errorf([]any{"published", i, "metric"}, "unknown metric %q (one of %s)", p.Metric, strings.Join(result.PublishedMetrics(), ", "))
		}
		if len(p.Match) == 0 {
			return s.errorf([]any{"published", i}, "a published figure needs match: the cells it compares with ({setup: NAME})")
		}
		keys := make([]string, 0, len(p.Match))
		for k := range p.Match {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := p.Match[k]
			values, ok := s.dimValues(k)
			if !ok {
				return s.errorf([]any{"published", i, "match", k}, "match on %q: cells have setup, workload, the sweep's parameters and the setups' params", k)
			}
			if !slices.Contains(values, v) {
				return s.errorf([]any{"published", i, "match", k}, "no cell has %s %q (%s)", k, v, strings.Join(values, ", "))
			}
		}
	}
	return nil
}

// dimValues are the values cells take along dim: the setups' names, the
// workloads' names, or a param's values (paramValues); false for a name
// no cell has.
func (s *Spec) dimValues(dim string) ([]string, bool) {
	var values []string
	switch dim {
	case "setup":
		for _, st := range s.Setups {
			values = append(values, st.Name)
		}
	case "workload":
		for _, w := range s.Workloads {
			values = append(values, w.Name)
		}
	default:
		return s.paramValues(dim)
	}
	return values, true
}

// paramValues are the values a param takes in some profile's cells: a
// swept one's (the file's and its profiles'), or the setups' params.
func (s *Spec) paramValues(k string) ([]string, bool) {
	vs, ok := s.Sweep.Lookup(k)
	values := slices.Clone(vs)
	for _, name := range s.ProfileNames() {
		if pv, ok := s.Profiles[name].Sweep.Lookup(k); ok {
			values = append(values, pv...)
		}
	}
	for _, st := range s.Setups {
		if v, in := st.Params[k]; in {
			ok = true
			values = append(values, v)
		}
	}
	return values, ok
}

// checkCompare checks compare: (a dimension cells have, a base value
// some cell has) and knee: (a numeric param).
func (s *Spec) checkCompare() error {
	for i, c := range s.Compare {
		values, ok := s.dimValues(c.Along)
		if !ok {
			return s.errorf([]any{"compare", i, "along"}, "%q: compare along setup, workload, a swept parameter or a setup's param", c.Along)
		}
		if !slices.Contains(values, c.Base) {
			return s.errorf([]any{"compare", i, "base"}, "no cell has %s %q (%s)", c.Along, c.Base, strings.Join(values, ", "))
		}
	}
	if s.Knee != "" {
		vs, ok := s.paramValues(s.Knee)
		if !ok {
			return s.errorf([]any{"knee"}, "%q is neither swept nor a setup's param", s.Knee)
		}
		for _, v := range vs {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return s.errorf([]any{"knee"}, "%s takes the value %q: a knee needs numbers", s.Knee, v)
			}
		}
	}
	return nil
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

// yamlDiskName names measure/disk's option fields as the file does.
func yamlDiskName(field string) string {
	return map[string]string{"BlockSize": "bs", "Size": "size", "Runtime": "runtime", "Sync": "sync", "Profile": "profile"}[field]
}

// errText renders an error, naming options with name when it is an
// invalid-input error.
func errText(err error, name func(string) string) string {
	if inv := invalid.As(err); inv != nil {
		return strings.Replace(err.Error(), inv.Error(), inv.Text(name), 1)
	}
	return err.Error()
}
