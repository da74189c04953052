package bench

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// LoadGroup is the name (after etcdlab-PID-) of the group that holds the
// load generator under its CPU budget (Config.LoadCPUs).
const LoadGroup = "load"

// ValidateLoadCPUs checks a load generator's CPU budget: 0 (none) or a
// number of cores from cluster.MinCPUs. A budget above this machine's
// cores is allowed (it limits nothing): LoadBudgetNote says so.
func ValidateLoadCPUs(cores float64) error {
	if cores != 0 && (!(cores >= cluster.MinCPUs) || math.IsInf(cores, 0)) {
		return invalid.Errorf("{LoadCPUs} must be a number of CPUs from %g (0.5, 2), not %g", cluster.MinCPUs, cores)
	}
	return nil
}

// LoadBudgetNote is a note for a budget that cannot limit anything on a
// machine of cpus cores, "" otherwise.
func LoadBudgetNote(cores float64, cpus int) string {
	if cpus > 0 && cores >= float64(cpus) {
		return fmt.Sprintf("the load generator's CPU budget of %g cores is not below this machine's %d: it limits nothing", cores, cpus)
	}
	return ""
}

// LoadBudget is the load generator's CPU budget on this machine: the
// group etcdlab-PID-load (PID: this process) with a CPU quota, into which
// the processes that send the load go (Add). Close moves them back to
// this process's cgroup and removes the group; should this process be
// killed (SIGKILL), the next etcdlab's cgroup.Sweep removes it. Its
// methods are safe for concurrent use (the group's files serialise).
type LoadBudget struct {
	g     cgroup.Group
	cores float64
}

// NewLoadBudget sweeps the groups dead etcdlab processes left, and makes
// this process's load group limited to cores CPUs (log hears of what
// was swept). Without permission to write cgroups the error is a
// *cluster.BudgetError, as for the members' budgets; a bad number is an
// invalid-input error.
func NewLoadBudget(cores float64, log io.Writer) (*LoadBudget, error) {
	if err := ValidateLoadCPUs(cores); err != nil {
		return nil, err
	}
	if cores == 0 {
		return nil, invalid.Errorf("{LoadCPUs} must be given to make a load budget")
	}
	if log == nil {
		log = io.Discard
	}
	h, err := cgroup.Open(0)
	if err != nil {
		return nil, &cluster.BudgetError{Err: err}
	}
	removed, err := h.Sweep()
	for _, d := range removed {
		fmt.Fprintf(log, "removed cgroup %s, left by an etcdlab process that is gone\n", d)
	}
	if err != nil {
		fmt.Fprintf(log, "warning: removing cgroups left by etcdlab processes that are gone: %v\n", err)
	}
	g, err := h.Create(os.Getpid(), LoadGroup)
	if err == nil {
		err = g.SetCPU(cores)
	}
	if err != nil {
		_ = g.Remove()
		if cgroup.IsUnavailable(err) {
			return nil, &cluster.BudgetError{Err: err}
		}
		return nil, fmt.Errorf("the load generator's CPU budget: %w", err)
	}
	return &LoadBudget{g: g, cores: cores}, nil
}

// Cores is the budget in cores.
func (b *LoadBudget) Cores() float64 { return b.cores }

// Group is the budget's cgroup.
func (b *LoadBudget) Group() cgroup.Group { return b.g }

// Add moves process pid (every thread of it; 0: this process) into the
// budget's group. Processes it starts afterwards are born in the group.
func (b *LoadBudget) Add(pid int) error {
	if pid == 0 {
		pid = os.Getpid()
	}
	if err := b.g.Add(pid); err != nil {
		if cgroup.IsUnavailable(err) {
			return &cluster.BudgetError{Err: err}
		}
		return fmt.Errorf("the load generator's CPU budget: %w", err)
	}
	return nil
}

// Close moves the processes still in the group (this one, when it added
// itself) back to this process's cgroup and removes the group.
func (b *LoadBudget) Close() error {
	if b == nil {
		return nil
	}
	if err := b.g.Remove(); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove the load generator's cgroup: %w", err)
	}
	return nil
}
