package sizejob

import (
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/experiment"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"github.com/etcdlab/etcdlab/measure/jobs"
)

// registry is the CLI's: measure/jobs' with the size job.
func registry() job.Registry { return With(jobs.Registry()) }

const head = "name: s\nsetups:\n  - {name: here}\nworkloads:\n  - name: tier\n    size: "

// TestFields: the size job's fields decode from a workload's size:, the
// candidates are members × cores × disks in that order, and the profile's
// set gives quick, rtt_budget, probe_time and candidates.
func TestFields(t *testing.T) {
	t.Parallel()
	text := head + "{nodes: 1000, pods: 30000, churn: 5, cpus: [4, 8], members: [3, 5], disks: [disk, tmpfs], rtt_budget: true, quota_backend_bytes: 8589934592}\n" +
		"profiles:\n  quick: {set: {quick: \"true\", candidates: \"3\", rtt_budget: \"false\", probe_time: 10s}}\n"
	s, err := experiment.Parse("s.yaml", []byte(text), registry())
	if err != nil {
		t.Fatal(err)
	}
	full, err := s.Plan("full")
	if err != nil {
		t.Fatal(err)
	}
	w := full.Cells[0].Work.(*Work)
	j := w.Job
	if j.Nodes != 1000 || j.Pods != 30000 || j.Churn != 5 || !j.RTTBudget || j.Quick || j.quota() != 8<<30 {
		t.Errorf("fields %+v", j)
	}
	var names []string
	for _, c := range j.candidates() {
		names = append(names, c.Name())
	}
	if got := strings.Join(names, ", "); got != "3x4c disk, 3x4c tmpfs, 3x8c disk, 3x8c tmpfs, 5x4c disk, 5x4c tmpfs, 5x8c disk, 5x8c tmpfs" {
		t.Errorf("candidates %s", got)
	}
	if len(w.Jobs) != len(jobs.Registry()) || w.Jobs.Lookup("size") != nil || w.Jobs.Lookup("bench") == nil {
		t.Errorf("the probes' jobs %v, want measure/jobs' without the size job", w.Jobs.Names())
	}
	if !w.StartsOwnClusters() {
		t.Error("the size job's cell would start a cluster of its own")
	}
	quick, err := s.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	q := quick.Cells[0].Work.(*Work).Job
	if !q.Quick || q.RTTBudget || q.ProbeTime.D() != 10*time.Second || len(q.candidates()) != 3 {
		t.Errorf("quick fields %+v", q)
	}
	if c := quick.Cells[0].Work.Command(); !strings.Contains(c, "--quick") || !strings.Contains(c, "--rtt-budget=false") || !strings.Contains(c, "(candidates 3x4c disk, 3x4c tmpfs, 3x8c disk)") {
		t.Errorf("quick command %q", c)
	}
	// The estimate is size's, with no cluster of the cell's.
	o := quick.Cells[0].Work.(*Work).options()
	if quick.Cells[0].Estimate == 0 || quick.Cells[0].Estimate >= full.Cells[0].Estimate || len(o.Candidates) != 3 {
		t.Errorf("estimates quick %s, full %s", quick.Cells[0].Estimate, full.Cells[0].Estimate)
	}
}

// TestFieldErrors: bad fields are one line of invalid input at the
// field's path, when the file is read (or planned, for a profile's set).
func TestFieldErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ fields, want string }{
		{"{nodes: 0, pods: 100, cpus: [2]}", "line 6: workloads[0].size.nodes: the cluster's nodes must be positive, not 0"},
		{"{nodes: -3, pods: 100, cpus: [2]}", "workloads[0].size.nodes: the cluster's nodes must be positive, not -3"},
		{"{nodes: 10, cpus: [2]}", "workloads[0].size.pods: the cluster's pods must be positive, not 0"},
		{"{nodes: 10, pods: -1, cpus: [2]}", "workloads[0].size.pods: the cluster's pods must be positive, not -1"},
		{"{nodes: 10, pods: 300, churn: -1, cpus: [2]}", "workloads[0].size.churn: churn (pods created per second) must not be negative"},
		{"{nodes: 10, pods: 300}", "workloads[0].size.cpus: no candidates"},
		{"{nodes: 10, pods: 300, cpus: [2, 0]}", "workloads[0].size.cpus[1]: a candidate's cpus must be positive, not 0"},
		{"{nodes: 10, pods: 300, cpus: [2], members: [9]}", "workloads[0].size.members[0]: a candidate's members must be 1 to 7, not 9"},
		{"{nodes: 10, pods: 300, cpus: [2], disks: [floppy]}", `workloads[0].size.disks[0]: disk "floppy": want disk, tmpfs`},
		{"{nodes: 10, pods: 300, cpus: [2], probe_time: 1s}", "workloads[0].size.probe_time: a probe's run must be at least 5s, not 1s"},
		{"{nodes: 100, pods: 100, cpus: [2]}", "workloads[0].size.pods: pods (100) is fewer than 100 nodes need"},
		{"{nodes: 10, pods: 5000, cpus: [2]}", "workloads[0].size.pods: pods (5000) is more than 10 nodes can run"},
		{"{nodes: 10, pods: 300, churn: 100, cpus: [2]}", "workloads[0].size.churn: churn 100 pods/s turns 300 pods over faster than once a minute"},
		{"{nodes: 10, pods: 300, cpus: [2], nodez: 3}", `line 6: unknown field "nodez"`},
		{"{nodes: ten, pods: 300, cpus: [2]}", "line 6: cannot unmarshal"},
	} {
		_, err := experiment.Parse("s.yaml", []byte(head+tt.fields+"\n"), registry())
		if err == nil || invalid.As(err) == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want one line of invalid input with %q", tt.fields, err, tt.want)
		}
	}
	// A profile's set the job cannot read fails the file at the cell.
	_, err := experiment.Parse("s.yaml", []byte(head+"{nodes: 10, pods: 300, cpus: [2]}\nprofiles:\n  quick: {set: {quick: maybe}}\n"), registry())
	if err == nil || !strings.Contains(err.Error(), `cell here/tier (profile quick): quick: "maybe" is not a valid value`) {
		t.Errorf("quick: maybe: %v", err)
	}
	// A live setup cannot host the search.
	live := "name: s\nsetups:\n  - {name: prod, endpoints: [127.0.0.1:2379]}\nworkloads:\n  - name: tier\n    size: {nodes: 10, pods: 300, cpus: [2]}\n"
	if _, err := experiment.Parse("s.yaml", []byte(live), registry()); err == nil || !strings.Contains(err.Error(), `setup "prod" (setups[0]) is a live cluster`) {
		t.Errorf("a live setup: %v", err)
	}
}

// TestSizingBuiltin: the sizing built-in (which measure/experiment's
// TestBuiltins cannot load without the size job) names its source, has
// the guide's four tiers at 30 pods a node with half, the guide's and
// double its cores, and plans a quick profile of the guide's cores and
// half, without the round-trip search, estimated at 15 minutes at most.
func TestSizingBuiltin(t *testing.T) {
	t.Parallel()
	s, err := experiment.Load("sizing", registry())
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "sizing" || s.Title == "" || !strings.HasPrefix(s.Source, "issue 35") {
		t.Errorf("name %q, title %q, source %q", s.Name, s.Title, s.Source)
	}
	full, err := s.Plan("full")
	if err != nil {
		t.Fatal(err)
	}
	quick, err := s.Plan("quick")
	if err != nil {
		t.Fatal(err)
	}
	tiers := []struct {
		name  string
		nodes int
		guide float64
	}{{"small", 50, 2}, {"medium", 250, 4}, {"large", 1000, 8}, {"xlarge", 3000, 16}}
	if len(full.Cells) != len(tiers) || len(quick.Cells) != len(tiers) {
		t.Fatalf("%d cells full, %d quick", len(full.Cells), len(quick.Cells))
	}
	for i, tier := range tiers {
		f, q := full.Cells[i].Work.(*Work).Job, quick.Cells[i].Work.(*Work).Job
		if full.Cells[i].Workload.Name != tier.name || f.Nodes != tier.nodes || f.Pods != 30*tier.nodes || !f.RTTBudget || f.Quick || f.quota() != 8<<30 {
			t.Errorf("%s: %+v", tier.name, f)
		}
		cs := f.candidates()
		if len(cs) != 3 || cs[0].CPUs != tier.guide/2 || cs[1].CPUs != tier.guide || cs[2].CPUs != 2*tier.guide || cs[1].Members != 3 || cs[1].Disk != "tmpfs" {
			t.Errorf("%s: candidates %+v", tier.name, cs)
		}
		qc := q.candidates()
		if !q.Quick || q.RTTBudget || len(qc) != 2 || qc[0].CPUs != tier.guide/2 || qc[1].CPUs != tier.guide {
			t.Errorf("%s quick: %+v, candidates %+v", tier.name, q, qc)
		}
	}
	if e := quick.Estimate(); e > 15*time.Minute || e >= full.Estimate() {
		t.Errorf("quick estimated at %s (full %s), want at most 15 minutes", e, full.Estimate())
	}
}
