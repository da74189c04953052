package cluster

import (
	"fmt"
	"math"
	"slices"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cgroup"
)

// MinCPUs is the smallest CPU budget: a cgroup quota needs at least 1 ms
// of every 100 ms period; MinMemory the smallest memory limit.
const (
	MinCPUs   = 0.01
	MinMemory = 64 << 20
)

// validateCPUs checks the members' CPU budgets: numbers of cores from
// MinCPUs, for members m1..mN.
func validateCPUs(all float64, by map[string]float64, members int) error {
	bad := func(v float64) bool { return v != 0 && (!(v >= MinCPUs) || math.IsInf(v, 0)) }
	if bad(all) {
		return invalid.Errorf("{CPUs} must be a number of CPUs from %g (0.5, 2), not %g", MinCPUs, all)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if !isMemberName(n, members) {
			return invalid.Errorf("{MemberCPUs} names %q, not a member (m1 to m%d)", n, members)
		}
		if bad(by[n]) {
			return invalid.Errorf("{MemberCPUs} of %s must be a number of CPUs from %g (0.5, 2), not %g", n, MinCPUs, by[n])
		}
	}
	return nil
}

// cpus is member name's CPU budget in cores, 0 for none.
func (o *Options) cpus(name string) float64 {
	if v, ok := o.MemberCPUs[name]; ok && v > 0 {
		return v
	}
	return o.CPUs
}

// budgeted reports whether any member has a CPU budget or a memory limit.
func (o *Options) budgeted() bool {
	if o.CPUs > 0 || o.Memory > 0 {
		return true
	}
	for _, v := range o.MemberCPUs {
		if v > 0 {
			return true
		}
	}
	return false
}

// BudgetError says the members' CPU budgets cannot be enforced here: the
// lab cannot write cgroups (not root, no cpu controller, a read-only
// cgroupfs). It is a bad request on this machine, not a failure.
type BudgetError struct {
	Err error
}

func (e *BudgetError) Error() string {
	return "CPU budgets need cgroups the lab can write: " + e.Err.Error()
}

func (e *BudgetError) Unwrap() error { return e.Err }

// budgetGroup is member name's budget group in the controller's cgroup
// (made if create).
func budgetGroup(owner int, dataDir, name string, create bool) (cgroup.Group, error) {
	return memberGroup(owner, dataDir, "budget-", name, create)
}

// memberGroup is a group of member name's, of kind ("budget-",
// "cpulimit-"), under owner's cgroup and named after it and the cluster's
// data directory (cgroupPrefix), so that the owner's Stop removes it and
// a sweep finds it after a kill -9; made if create.
func memberGroup(owner int, dataDir, kind, name string, create bool) (cgroup.Group, error) {
	h, err := cgroup.Open(owner)
	if err != nil {
		return cgroup.Group{}, err
	}
	gname := cgroupPrefix(dataDir) + kind + name
	if !create {
		return h.Group(owner, gname), nil
	}
	return h.Create(owner, gname)
}

// applyBudget puts member i's process, pid, into its budget group, when
// it has a CPU budget or a memory limit. The group is named after the
// cluster's controller, so Stop removes it and a later start sweeps it
// after a kill -9 (cgroup.Sweep).
func (c *Cluster) applyBudget(i, pid int) error {
	name := c.names[i]
	cores, memory := c.opts.cpus(name), c.opts.Memory
	if cores <= 0 && memory <= 0 {
		return nil
	}
	g, err := budgetGroup(c.ctl.PID, c.dir.root, name, true)
	if err != nil {
		return &BudgetError{Err: err}
	}
	if cores > 0 {
		if err := g.SetCPU(cores); err != nil {
			return fmt.Errorf("member %s's CPU budget: %w", name, err)
		}
	}
	if err := g.Add(pid); err != nil {
		return fmt.Errorf("member %s's budget: %w", name, err)
	}
	if memory > 0 {
		// After Add: in v1 SetMemory moves the group's processes into
		// its memory hierarchy too.
		if err := g.SetMemory(memory); err != nil {
			return fmt.Errorf("member %s's memory limit: %w", name, err)
		}
	}
	return nil
}

// isMemberName reports whether n names one of members members (m1..mN).
func isMemberName(n string, members int) bool {
	for i := range members {
		if n == memberName(i+1) {
			return true
		}
	}
	return false
}
