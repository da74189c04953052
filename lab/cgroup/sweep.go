package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// Owner returns the owner pid in a group's directory name
// (etcdlab-OWNER-NAME), and false for a name the lab did not give.
func Owner(dirName string) (int, bool) {
	rest, ok := strings.CutPrefix(dirName, "etcdlab-")
	if !ok {
		return 0, false
	}
	pid, name, ok := strings.Cut(rest, "-")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || n <= 0 || name == "" {
		return 0, false
	}
	return n, true
}

// Sweep removes the groups whose owner process no longer runs (a lab
// process killed with SIGKILL leaves its groups behind), moving any
// process still in one to this process's cgroup first. It returns the
// directories it removed. A group whose owner runs is left alone, even
// when that owner is another etcdlab. A pid reused by an unrelated process
// keeps its dead owner's groups until that process ends too.
func (h Hierarchy) Sweep() ([]string, error) {
	return h.remove(func(owner int, _ string) bool { return !(proc.ID{PID: owner}).Alive() })
}

// RemoveOwned removes the groups of owner whose names (after
// etcdlab-OWNER-) start with prefix, as Group.Remove does: what a process
// made, when it stops. It returns the directories it removed.
func (h Hierarchy) RemoveOwned(owner int, prefix string) ([]string, error) {
	return h.remove(func(o int, dir string) bool {
		return o == owner && strings.HasPrefix(dir, GroupName(owner, prefix))
	})
}

// remove removes the groups (in every hierarchy they may be in) whose
// owner and name match.
func (h Hierarchy) remove(match func(owner int, dir string) bool) ([]string, error) {
	var removed []string
	var errs []error
	for _, p := range h.places() {
		ents, err := os.ReadDir(p.parent)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, e := range ents {
			owner, ok := Owner(e.Name())
			if !e.IsDir() || !ok || !match(owner, e.Name()) {
				continue
			}
			dir := filepath.Join(p.parent, e.Name())
			if err := removeDir(dir, p.home); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, dir)
		}
	}
	return removed, errors.Join(errs...)
}

// Sweep opens this process's hierarchy and removes the groups of owners
// that no longer run (Hierarchy.Sweep). Where cgroups are unavailable
// there is nothing to sweep: it returns nil, nil.
func Sweep() ([]string, error) {
	h, err := Open(0)
	if IsUnavailable(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return h.Sweep()
}
