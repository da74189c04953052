package cluster

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cgroup"
)

// The CPU limit's faults, as Counts names them.
const (
	FaultCPULimit   = "cpulimit"
	FaultCPUUnlimit = "cpuunlimit"
)

// DefaultCPULimit is the cores cpulimit leaves a member when it is given
// none (as experiment timelines give it).
const DefaultCPULimit = 0.1

// cpuLimit starves a member of CPU: its process goes into a cgroup whose
// CPU quota is CORES CPUs (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us),
// until cpuunlimit. The group is named after the cluster's controller
// (cgroup.GroupName), so the controller removes it when it stops, and a
// later cluster's start removes it if the controller was killed. A member
// restarted meanwhile is a new process, outside the group.
type cpuLimit struct{}

func (cpuLimit) About() About {
	return About{Name: FaultCPULimit, Args: "a member name and optionally its CPUs", MinArgs: 1, MaxArgs: 2, Usage: "MEMBER [CORES]",
		Help: fmt.Sprintf("limit the member to CORES CPUs (default %g) by a cgroup CPU quota, a starved machine", DefaultCPULimit), Undo: FaultCPUUnlimit, UndoBeforeStop: true}
}

func (cpuLimit) Apply(c *Cluster, r Request) error {
	_, err := limitCPU(c.State(), r)
	return c.counted(FaultCPULimit, err)
}

func (cpuLimit) Inject(_ context.Context, st State, r Request) ([]string, error) {
	line, err := limitCPU(st, r)
	if err != nil {
		return nil, err
	}
	return []string{line}, nil
}

// cpuUnlimit removes a member's CPU limit: its process goes back to the
// controller's cgroup and the group is removed.
type cpuUnlimit struct{}

func (cpuUnlimit) About() About {
	return About{Name: FaultCPUUnlimit, Args: "one member name", MinArgs: 1, MaxArgs: 1, Usage: "MEMBER",
		Help: "undo a cpulimit", Undoes: FaultCPULimit}
}

func (cpuUnlimit) Apply(c *Cluster, r Request) error {
	_, err := unlimitCPU(c.State(), r.arg(0))
	return c.counted(FaultCPUUnlimit, err)
}

func (cpuUnlimit) Inject(_ context.Context, st State, r Request) ([]string, error) {
	line, err := unlimitCPU(st, r.arg(0))
	if err != nil {
		return nil, err
	}
	return []string{line}, nil
}

// limitCPU puts member r.arg(0) of the cluster st describes into its CPU
// limit group, limited to r.arg(1) cores (DefaultCPULimit without), and
// says so.
func limitCPU(st State, r Request) (string, error) {
	cores := DefaultCPULimit
	if s := r.arg(1); s != "" {
		var err error
		cores, err = strconv.ParseFloat(s, 64)
		if err != nil || !(cores > 0) || math.IsInf(cores, 0) {
			return "", invalid.Errorf("fault %s: CORES must be a number of CPUs above 0 (0.1, 1.5), not %q", FaultCPULimit, s)
		}
	}
	m, err := stateMember(st, r.arg(0))
	if err != nil {
		return "", err
	}
	if !m.Process().Alive() {
		return "", fmt.Errorf("member %s is not running", m.Name)
	}
	g, err := cpuGroup(st, m.Name, true)
	if err != nil {
		return "", err
	}
	if err := g.SetCPU(cores); err != nil {
		return "", fmt.Errorf("member %s: %w", m.Name, err)
	}
	if err := g.Add(m.PID); err != nil {
		return "", fmt.Errorf("member %s: %w", m.Name, err)
	}
	return fmt.Sprintf("limited %s to %g CPUs (cgroup %s)", m.Name, cores, g.Dir()), nil
}

// unlimitCPU removes member name's CPU limit group, and says so.
func unlimitCPU(st State, name string) (string, error) {
	m, err := stateMember(st, name)
	if err != nil {
		return "", err
	}
	g, err := cpuGroup(st, name, false)
	if err != nil {
		return "", err
	}
	if !g.Exists() {
		return name + " had no CPU limit", nil
	}
	// A member with a budget goes back to its budget, not to the
	// controller's cgroup (Remove's home).
	if b, err := budgetGroup(st.Controller.PID, st.DataDir, name, false); err == nil && b.Exists() && m.PID > 0 {
		if err := b.Add(m.PID); err != nil {
			return "", fmt.Errorf("member %s back to its CPU budget: %w", name, err)
		}
	}
	if err := g.Remove(); err != nil {
		return "", fmt.Errorf("member %s: %w", name, err)
	}
	return "removed " + name + "'s CPU limit", nil
}

// cpuGroup returns member name's CPU limit group in the cgroup of the
// cluster's controller, made if create.
func cpuGroup(st State, name string, create bool) (cgroup.Group, error) {
	return memberGroup(st.Controller.PID, st.DataDir, "cpulimit-", name, create)
}

// stateMember returns the member of st called name.
func stateMember(st State, name string) (MemberState, error) {
	var names []string
	for _, m := range st.Members {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return MemberState{}, invalid.Errorf("no member %q (members are %v)", name, names)
}
