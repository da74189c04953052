package cluster

import (
	"fmt"
	"hash/fnv"
	"io"

	"github.com/etcdlab/etcdlab/lab/cgroup"
)

// cgroupPrefix begins the names of the cgroups a cluster makes (after
// cgroup.GroupName's etcdlab-OWNER-): a hash of its data directory, so
// that two clusters of one process (tests) remove only their own.
func cgroupPrefix(dataDir string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(dataDir))
	return fmt.Sprintf("%08x-", h.Sum32())
}

// sweepCgroups removes the cgroups left by lab processes that were killed
// (cgroup.Sweep), and says so on log. Where cgroups are unavailable there
// is nothing to do; a failure is a warning, not a reason not to start.
func sweepCgroups(log io.Writer) {
	removed, err := cgroup.Sweep()
	for _, d := range removed {
		fmt.Fprintf(log, "removed cgroup %s, left by an etcdlab process that is gone\n", d)
	}
	if err != nil {
		fmt.Fprintf(log, "warning: removing cgroups left by etcdlab processes that are gone: %v\n", err)
	}
}

// removeCgroups removes the cgroups made for this cluster (a member's CPU
// limit), moving the members still in them back to this process's
// cgroup.
func (c *Cluster) removeCgroups() error {
	h, err := cgroup.Open(0)
	if cgroup.IsUnavailable(err) {
		return nil // nothing can have been made
	}
	if err != nil {
		return err
	}
	_, err = h.RemoveOwned(c.ctl.PID, cgroupPrefix(c.dir.root))
	return err
}
