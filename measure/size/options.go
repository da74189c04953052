package size

import (
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdbuild"
	"github.com/etcdlab/etcdlab/lab/topology"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// Candidate is one cluster to judge: Members members of CPUs cores each on
// Disk, RTT apart, running Version.
type Candidate struct {
	Members int
	CPUs    float64
	// Disk is "disk" (the data dir's disk: this machine's), "tmpfs", a
	// topology preset that places storage (ebs-001, hdd, ssd-004, pmem),
	// or a delay slowfs takes ("10ms", "lognormal:p50=..,p99=..",
	// "fit:p50=..,p99=..").
	Disk string
	RTT  time.Duration
	// Version is the members' etcd ("" is the etcd in etcdlab).
	Version string
}

// Name is the candidate's label: "3x4c disk", "5x2c ebs-001 20ms 3.5.35".
func (c Candidate) Name() string {
	s := fmt.Sprintf("%dx%gc %s", c.Members, c.CPUs, c.Disk)
	if c.RTT > 0 {
		s += " " + c.RTT.String()
	}
	if c.Version != "" {
		s += " " + c.Version
	}
	return s
}

// Options say what to size and on what.
type Options struct {
	// Load is the target's load (Model or FromProfile).
	Load Load
	// Candidates are judged in order; at least one.
	Candidates []Candidate
	// Quick shortens the probes and coarsens the bisection.
	Quick bool
	// RTTBudget searches the round-trip budget on the chosen candidate.
	RTTBudget bool
	// ProbeTime is each probe's measured run (0: 40 s, quick 15 s).
	ProbeTime time.Duration
	// LabCores is the CPU the lab gives a probe's members together (0:
	// 60% of this machine's cores, at most 1.2): a candidate whose
	// members need more runs scaled down to it.
	LabCores float64
	// Scale, if positive, runs every candidate at this factor instead of
	// the one that fits LabCores (the direct check: 1 against 0.5).
	Scale float64
	// LoadCores is the load generator's CPU budget (0: 0.5): the load runs
	// in a process of its own (Executable's agent) in a cgroup with that
	// quota. Negative: in this process, without a budget (a test binary,
	// which is no etcdlab agent).
	LoadCores float64
	// DataDir is where "disk" candidates put their members ("": ./.etcdlab).
	DataDir string
	// Executable is etcdlab (experiment.Options.Executable).
	Executable string
	// Jobs is the experiment job registry the probes run through
	// (measure/jobs.Registry()).
	Jobs job.Registry
	// Log receives a line per probe for a person; nil discards.
	Log io.Writer
}

// Disk classes a candidate may name besides presets and delays.
const (
	DiskThis  = "disk"
	DiskTmpfs = "tmpfs"
)

// maxCandidates bounds one invocation (each is a search of several probes).
const maxCandidates = 12

// Check checks o as Run would, without starting anything: its errors are
// invalid-input errors of one line.
func Check(o Options) error { return o.validate() }

// minMemberCores is the least CPU budget a member gets in the lab. A
// budget is a quota of each 100 ms: below 0.1 cores a member stops for
// more than 90 ms whenever it has used its share, and those stops alone
// make applies slower than etcd's 100 ms (measured: slow applies at 0.056
// cores under 3 requests a second), whatever the load.
const minMemberCores = 0.1

func (o *Options) validate() error {
	switch {
	case o.Load == nil:
		return invalid.Errorf("nothing to size: give {Nodes} and {Pods}, or {Profile}")
	case len(o.Candidates) == 0:
		return invalid.Errorf("no candidates")
	case len(o.Candidates) > maxCandidates:
		return invalid.Errorf("%d candidates: at most %d in one run (each is a search of several probes)", len(o.Candidates), maxCandidates)
	case o.ProbeTime < 0 || (o.ProbeTime > 0 && o.ProbeTime < 5*time.Second):
		return invalid.Errorf("{ProbeTime} must be at least 5s, not %s", o.ProbeTime)
	case o.LabCores < 0 || math.IsNaN(o.LabCores) || o.LabCores > float64(runtime.NumCPU()):
		return invalid.Errorf("{LabCores} must be between 0 and this machine's %d cores, not %g", runtime.NumCPU(), o.LabCores)
	case o.Scale < 0 || o.Scale > 1 || math.IsNaN(o.Scale):
		return invalid.Errorf("{Scale} must be between 0 and 1, not %g", o.Scale)
	case o.Scale > 0 && slices.ContainsFunc(o.Candidates, func(c Candidate) bool { return o.Scale*c.CPUs < minMemberCores }):
		return invalid.Errorf("{Scale} %g gives a candidate's members less than the lab's smallest budget, %g cores", o.Scale, minMemberCores)
	case o.Jobs == nil:
		return invalid.Errorf("{Jobs} is required")
	}
	lab := o.LabCores
	if lab == 0 {
		lab = min(maxLabCores, defaultLabShare*float64(runtime.NumCPU()))
	}
	for _, c := range o.Candidates {
		if err := c.validate(); err != nil {
			return err
		}
		if float64(c.Members)*minMemberCores > lab {
			return invalid.Errorf("candidate %s cannot run here: %d members need at least %.2f cores together, and the lab has %.2f ({LabCores})",
				c.Name(), c.Members, float64(c.Members)*minMemberCores, lab)
		}
	}
	if os.Geteuid() != 0 {
		return invalid.Errorf("etcdlab size needs root: the candidates' CPU budgets are cgroup quotas and their round trips a network namespace")
	}
	return nil
}

func (c Candidate) validate() error {
	switch {
	case c.Members < 1 || c.Members > 7:
		return invalid.Errorf("a candidate's {Members} must be 1 to 7, not %d", c.Members)
	case c.CPUs <= 0 || math.IsNaN(c.CPUs) || math.IsInf(c.CPUs, 0):
		return invalid.Errorf("a candidate's {CPUs} must be positive, not %g", c.CPUs)
	case c.RTT < 0:
		return invalid.Errorf("a candidate's {RTT} must not be negative, not %s", c.RTT)
	}
	if _, err := c.storage(); err != nil {
		return err
	}
	if v := c.Version; v != "" {
		if _, ok := etcdbuild.ParseVersion(v); !ok {
			if fi, err := os.Stat(v); err != nil || fi.IsDir() {
				return invalid.Errorf("etcd %q: want a version (3.5.35, 3.6) or an etcd binary's path", v)
			}
		}
	}
	return nil
}

// storage is the candidate's disk as a setup's storage, or the preset
// whose storage section it takes.
func (c Candidate) storage() (st diskPlace, err error) {
	switch d := c.Disk; {
	case d == "" || d == DiskThis:
		return diskPlace{storage: "disk"}, nil
	case d == DiskTmpfs:
		return diskPlace{storage: "tmpfs"}, nil
	case strings.HasPrefix(d, "slow:"):
		return diskPlace{storage: d}, nil
	case d[0] >= '0' && d[0] <= '9', strings.HasPrefix(d, "fit:"), strings.HasPrefix(d, "lognormal:"):
		return diskPlace{storage: "slow:" + d}, nil
	default:
		t, err := topology.Load(d)
		if err != nil || !slices.Contains(topology.Presets(), d) {
			return st, invalid.Errorf("disk %q: want disk, tmpfs, a preset with storage (ebs-001, hdd, ssd-004, pmem) or a delay (10ms, fit:p50=2ms,p99=6.4ms)", d)
		}
		if t.Storage.FsyncDelay == "" && !t.Storage.Tmpfs {
			return st, invalid.Errorf("disk %q: that preset places no storage", d)
		}
		return diskPlace{preset: d, storageSpec: t.Storage}, nil
	}
}

// diskPlace is where a candidate's members keep their data: a setup's
// storage, or a preset's storage section.
type diskPlace struct {
	storage     string
	preset      string
	storageSpec topology.Storage
}
