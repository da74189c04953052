// Package sizejob is the experiment runner's size job: a workload's
// size: runs etcdlab size's search (measure/size) for a Kubernetes
// cluster's size on the workload's candidates, and the cell records the
// answer (result.Cell.Size). It is not in measure/jobs' registry: the
// search runs each probe as a one-cell experiment of its own, so it
// imports the runner (measure/experiment), which measure/jobs must not;
// the CLI adds it to that registry (With).
package sizejob

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/size"
	"github.com/etcdlab/etcdlab/result"
)

// With is the registry base with the size job added, its probes run with
// base's jobs (a search never runs a search).
func With(base job.Registry) job.Registry {
	return append(slices.Clip(base), Size{Jobs: base})
}

// Size is etcdlab size's search (measure/size) for a Kubernetes cluster
// of the job's nodes and pods, on the job's candidates: a workload's
// size:. Each probe of the search is a one-cell experiment of its own on
// a fresh cluster of the candidate's, run through Jobs (the registry
// without the size job: no search within a search); the cell starts no
// cluster (job.OwnClusters), so its setup only names the machine.
type Size struct {
	Jobs job.Registry
}

// Fields is the size job's fields. The candidates are every combination
// of Members, CPUs and Disks, in that order (members outermost).
type Fields struct {
	// Nodes and Pods size the Kubernetes cluster to plan for; Churn is
	// its pods created (and as many deleted) per second (0: the sizing
	// model's default). The model (load/sizing) derives the rest.
	Nodes int     `yaml:"nodes"`
	Pods  int     `yaml:"pods"`
	Churn float64 `yaml:"churn"`
	// CPUs are the cores per member of the candidates, Members their
	// sizes (default [3]) and Disks their disks (default [disk]: the
	// experiment's data dir; also tmpfs, a preset with storage such as
	// ebs-001, or a delay such as 10ms or fit:p50=2ms,p99=6.4ms).
	CPUs    []float64 `yaml:"cpus"`
	Members []int     `yaml:"members"`
	Disks   []string  `yaml:"disks"`
	// Quota is the members' backend quota the database is judged against
	// (default etcd's, 2 GiB).
	Quota int64 `yaml:"quota_backend_bytes"`
	// RTTBudget searches the round-trip budget on the chosen candidate;
	// Quick is the quick search (shorter probes, coarser bisection);
	// ProbeTime is each probe's measured run (0: size's, 40 s or quick
	// 15 s).
	RTTBudget bool         `yaml:"rtt_budget"`
	Quick     bool         `yaml:"quick"`
	ProbeTime job.Duration `yaml:"probe_time"`
	// Candidates, if positive, keeps the first this many candidates (a
	// profile's set: candidates: 2 searches the two smallest).
	Candidates int `yaml:"candidates"`
}

// defaultQuota is etcd's default backend quota (--quota-backend-bytes).
const defaultQuota = 2 << 30

// Name is the workload's key.
func (Size) Name() string { return "size" }

// Fields is a *Fields.
func (Size) Fields() any { return (*Fields)(nil) }

// Placeholders: a size job takes no sweep values.
func (Size) Placeholders(any) []string { return nil }

// Check checks that every setup the job runs on is local (the probes
// start local clusters on this machine), the cluster's size and the
// candidates.
func (Size) Check(c job.Checker, fields any) error {
	for _, st := range c.Setups() {
		if st.Runs && st.Live {
			return c.Errorf(nil, "the size job starts its own clusters on this machine; setup %q (setups[%d]) is a live cluster", st.Name, st.Index)
		}
	}
	j := fields.(*Fields)
	if path, err := j.check(); err != nil {
		return c.Errorf(path, "%s", job.ErrText(err, yamlSizeName))
	}
	return nil
}

// yamlSizeName names measure/size's and load/sizing's option fields as
// the file does.
func yamlSizeName(field string) string {
	if n, ok := map[string]string{"Nodes": "nodes", "Pods": "pods", "Churn": "churn", "Members": "members", "CPUs": "cpus",
		"ProbeTime": "probe_time", "RTT": "rtt", "Profile": "profile"}[field]; ok {
		return n
	}
	return strings.ToLower(field)
}

// check checks the fields as far as can be known without running, and
// returns the path of the field at fault.
func (j *Fields) check() ([]any, error) {
	switch {
	case j.Nodes <= 0:
		return []any{"nodes"}, fmt.Errorf("the cluster's nodes must be positive, not %d", j.Nodes)
	case j.Pods <= 0:
		return []any{"pods"}, fmt.Errorf("the cluster's pods must be positive, not %d", j.Pods)
	case j.Churn < 0:
		return []any{"churn"}, fmt.Errorf("churn (pods created per second) must not be negative, not %g", j.Churn)
	case len(j.CPUs) == 0:
		return []any{"cpus"}, fmt.Errorf("no candidates: give the cores per member to try (cpus: [2, 4])")
	case j.Quota < 0:
		return []any{"quota_backend_bytes"}, fmt.Errorf("the quota must not be negative, not %d", j.Quota)
	case j.ProbeTime > 0 && j.ProbeTime.D() < 5*time.Second:
		return []any{"probe_time"}, fmt.Errorf("a probe's run must be at least 5s, not %s", j.ProbeTime.D())
	case j.Candidates < 0:
		return []any{"candidates"}, fmt.Errorf("candidates must not be negative, not %d", j.Candidates)
	}
	for i, n := range j.CPUs {
		if err := size.CheckCandidate(size.Candidate{Members: 3, CPUs: n}); err != nil {
			return []any{"cpus", i}, err
		}
	}
	for i, m := range j.Members {
		if err := size.CheckCandidate(size.Candidate{Members: m, CPUs: 1}); err != nil {
			return []any{"members", i}, err
		}
	}
	for i, d := range j.Disks {
		if err := size.CheckCandidate(size.Candidate{Members: 3, CPUs: 1, Disk: d}); err != nil {
			return []any{"disks", i}, err
		}
	}
	if _, err := j.load(); err != nil {
		return modelPath(err), err
	}
	return nil, nil
}

// candidates are the candidates the fields name, in order: members,
// then cores, then disks; the first Candidates of them when it is set.
func (j *Fields) candidates() []size.Candidate {
	members, disks := j.Members, j.Disks
	if len(members) == 0 {
		members = []int{3}
	}
	if len(disks) == 0 {
		disks = []string{size.DiskThis}
	}
	var out []size.Candidate
	for _, m := range members {
		for _, c := range j.CPUs {
			for _, d := range disks {
				out = append(out, size.Candidate{Members: m, CPUs: c, Disk: d})
			}
		}
	}
	if j.Candidates > 0 && j.Candidates < len(out) {
		out = out[:j.Candidates]
	}
	return out
}

// quota is the backend quota the database is judged against.
func (j *Fields) quota() int64 {
	if j.Quota > 0 {
		return j.Quota
	}
	return defaultQuota
}

// Plan applies the profile's set: quick, rtt_budget, probe_time and
// candidates (noting each in p.Applied).
func (s Size) Plan(p job.Cell, fields any) (job.Work, error) {
	j := *fields.(*Fields)
	for _, o := range p.Overrides {
		var err error
		switch o[0] {
		case "quick":
			j.Quick, err = strconv.ParseBool(o[1])
		case "rtt_budget":
			j.RTTBudget, err = strconv.ParseBool(o[1])
		case "probe_time":
			var d time.Duration
			d, err = time.ParseDuration(o[1])
			j.ProbeTime = job.Duration(d)
		case "candidates":
			j.Candidates, err = strconv.Atoi(o[1])
		default:
			continue
		}
		if err != nil {
			return nil, p.Errorf(nil, "cell %s (profile %s): %s: %q is not a valid value", p.ID, p.Profile, o[0], o[1])
		}
		p.Applied[o[0]] = true
	}
	if path, err := j.check(); err != nil {
		return nil, p.Errorf(path, "cell %s (profile %s): %s", p.ID, p.Profile, job.ErrText(err, yamlSizeName))
	}
	return &Work{Job: &j, Jobs: s.Jobs}, nil
}

// Work is a size cell's work: the search under the profile, its
// probes run through Jobs (the planning Size's).
type Work struct {
	Job  *Fields
	Jobs job.Registry
}

// StartsOwnClusters: every probe of the search is a fresh cluster of its
// own (job.OwnClusters); the cell starts none.
func (w *Work) StartsOwnClusters() bool { return true }

// Command is the search as `etcdlab size`'s flags.
func (w *Work) Command() string {
	j := w.Job
	parts := []string{fmt.Sprintf("--nodes %d --pods %d", j.Nodes, j.Pods)}
	if j.Churn > 0 {
		parts = append(parts, fmt.Sprintf("--churn %g", j.Churn))
	}
	parts = append(parts, candidateFlags(j.candidates())...)
	if j.Quota > 0 {
		parts = append(parts, fmt.Sprintf("--quota %d", j.Quota))
	}
	if j.ProbeTime > 0 {
		parts = append(parts, "--probe-time "+j.ProbeTime.D().String())
	}
	if !j.RTTBudget {
		parts = append(parts, "--rtt-budget=false")
	}
	if j.Quick {
		parts = append(parts, "--quick")
	}
	return "size " + strings.Join(parts, " ") + " (each probe on a fresh cluster of its own)"
}

// candidateFlags are the candidates as size's --members, --cpus and
// --disk: every combination of the values given, or each candidate named
// when a profile kept only some of them.
func candidateFlags(cs []size.Candidate) []string {
	var members, cpus, disks []string
	add := func(list *[]string, v string) {
		if !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for _, c := range cs {
		add(&members, strconv.Itoa(c.Members))
		add(&cpus, strconv.FormatFloat(c.CPUs, 'g', -1, 64))
		add(&disks, c.Disk)
	}
	if len(members)*len(cpus)*len(disks) != len(cs) {
		var names []string
		for _, c := range cs {
			names = append(names, c.Name())
		}
		return []string{"(candidates " + strings.Join(names, ", ") + ")"}
	}
	return []string{"--members " + strings.Join(members, ","), "--cpus " + strings.Join(cpus, ","), "--disk " + strings.Join(disks, ",")}
}

// options are size's options for the search, bar the load.
func (w *Work) options() size.Options {
	j := w.Job
	return size.Options{Candidates: j.candidates(), Quick: j.Quick, RTTBudget: j.RTTBudget, ProbeTime: j.ProbeTime.D(), Jobs: w.Jobs, Log: io.Discard}
}

// Estimate is size's model of the search (size.Estimate): the idle
// probe, each candidate's knee search, the round-trip search.
func (w *Work) Estimate(job.Env) time.Duration { return size.Estimate(w.options()) }

// Run runs the search in the experiment's data dir and writes the answer
// into the cell (it returns no document). An interrupted or failed
// search keeps what it measured in the cell.
func (w *Work) Run(ctx context.Context, t *job.Target) (*result.Document, error) {
	load, err := w.Job.load()
	if err != nil {
		return nil, err
	}
	o := w.options()
	o.Load, o.Executable, o.DataDir = load, t.Executable, t.DataDir
	out, err := size.Run(ctx, o)
	if out != nil {
		t.Cell.Size = out
		if out.Choice != "" {
			t.Cell.Notes = append(t.Cell.Notes, "choice: "+out.Choice+": "+out.ChoiceWhy)
		} else if out.ChoiceWhy != "" {
			t.Cell.Notes = append(t.Cell.Notes, "no choice: "+out.ChoiceWhy)
		}
	}
	return nil, err
}
