package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Period is the CPU quota's period: a group limited to c cores runs at
// most c×Period in every Period.
const Period = 100 * time.Millisecond

// minQuota is the kernel's smallest CFS quota (1 ms).
const minQuota = time.Millisecond

// Group is one control group the lab made (Hierarchy.Create) or names
// (Hierarchy.Group). It is a plain value, safe for concurrent use.
type Group struct {
	h    Hierarchy
	name string
}

// Name returns the group's directory name (etcdlab-OWNER-NAME).
func (g Group) Name() string { return g.name }

// Dir returns the group's directory in the cpu controller's hierarchy.
func (g Group) Dir() string { return filepath.Join(g.h.parent, g.name) }

// dirIn is the group's directory in place p.
func (g Group) dirIn(p place) string { return filepath.Join(p.parent, g.name) }

// Exists reports whether the group's directory is there.
func (g Group) Exists() bool { return exists(g.Dir()) }

// Add moves process pid (all its threads) into the group, in every
// hierarchy the group has a directory in (v1: cpu, and cpuset and memory
// once SetCPUSet or SetMemory made them).
func (g Group) Add(pid int) error {
	for i, p := range g.h.places() {
		d := g.dirIn(p)
		if i > 0 && !exists(d) {
			continue
		}
		if err := writePID(d, pid); err != nil {
			return err
		}
	}
	return nil
}

// PIDs returns the processes in the group (its cpu directory).
func (g Group) PIDs() ([]int, error) { return readPIDs(g.Dir()) }

// SetCPU limits the group to cores CPUs (0.5 is half of one) by a CFS
// quota over Period: cpu.max in v2, cpu.cfs_quota_us and
// cpu.cfs_period_us in v1. cores 0 removes the limit. A quota below the
// kernel's 1 ms per period is an error.
func (g Group) SetCPU(cores float64) error {
	if cores < 0 || math.IsNaN(cores) || math.IsInf(cores, 0) {
		return fmt.Errorf("cgroup %s: cannot limit to %v cores", g.name, cores)
	}
	quota := time.Duration(cores * float64(Period))
	if cores > 0 && quota < minQuota {
		return fmt.Errorf("cgroup %s: %v cores is below the kernel's smallest quota (%v per %v)", g.name, cores, minQuota, Period)
	}
	period := strconv.FormatInt(Period.Microseconds(), 10)
	q := strconv.FormatInt(quota.Microseconds(), 10)
	if g.h.layout.Version == V2 {
		if cores == 0 {
			q = "max"
		}
		return write(g.Dir(), "cpu.max", q+" "+period)
	}
	if cores == 0 {
		q = "-1"
	}
	if err := write(g.Dir(), "cpu.cfs_period_us", period); err != nil {
		return err
	}
	return write(g.Dir(), "cpu.cfs_quota_us", q)
}

// SetCPUSet pins the group to the CPUs cpus lists ("0-1", "3"): in v2
// with the cpuset controller enabled for the group first; in v1 in the
// group's own directory of the cpuset hierarchy, made with the parent's
// memory nodes, the group's processes moved in.
func (g Group) SetCPUSet(cpus string) error {
	d, err := g.controlled("cpuset", func(d string, p place) error {
		mems, err := os.ReadFile(filepath.Join(p.parent, "cpuset.mems"))
		if err != nil {
			return fmt.Errorf("cgroup %s: %w", g.name, err)
		}
		return write(d, "cpuset.mems", strings.TrimSpace(string(mems)))
	})
	if err != nil {
		return err
	}
	return g.moveIn(d, write(d, "cpuset.cpus", cpus))
}

// SetMemory limits the group's memory to bytes (memory.max in v2,
// memory.limit_in_bytes in v1, in the memory hierarchy's own directory of
// the group, the group's processes moved in); 0 removes the limit.
func (g Group) SetMemory(bytes int64) error {
	if bytes < 0 {
		return fmt.Errorf("cgroup %s: cannot limit memory to %d bytes", g.name, bytes)
	}
	d, err := g.controlled("memory", nil)
	if err != nil {
		return err
	}
	v := strconv.FormatInt(bytes, 10)
	if g.h.layout.Version == V2 {
		if bytes == 0 {
			v = "max"
		}
		return write(d, "memory.max", v)
	}
	if bytes == 0 {
		v = "-1"
	}
	return g.moveIn(d, write(d, "memory.limit_in_bytes", v))
}

// controlled returns the group's directory in controller ctrl's hierarchy,
// ready for its files: in v2 with ctrl enabled in the parent's
// cgroup.subtree_control; in v1 made if need be, init run on a new one.
func (g Group) controlled(ctrl string, init func(dir string, p place) error) (string, error) {
	p, ok := g.h.placeOf(ctrl)
	if !ok {
		return "", unavailable(nil, "the %s controller is not mounted", ctrl)
	}
	d := g.dirIn(p)
	if g.h.layout.Version == V2 {
		return d, enable(p.parent, ctrl)
	}
	err := os.Mkdir(d, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return d, nil
	}
	if err != nil {
		return "", permission(err, d)
	}
	if init != nil {
		return d, init(d, p)
	}
	return d, nil
}

// moveIn moves the group's processes (its cpu directory's) into its
// directory d of another v1 hierarchy, unless err (a limit's write)
// failed, which it returns.
func (g Group) moveIn(d string, err error) error {
	if err != nil || d == g.Dir() {
		return err
	}
	pids, err := g.PIDs()
	if err != nil {
		return fmt.Errorf("cgroup %s: %w", g.name, err)
	}
	for _, pid := range pids {
		if err := writePID(d, pid); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
	}
	return nil
}

// CPUStat is what cpu.stat says of a group's CPU quota: how many periods
// it ran in, in how many it was throttled, and for how long in all.
type CPUStat struct {
	Periods, Throttled uint64
	ThrottledTime      time.Duration
	// Usage is the CPU time the group used (v2's usage_usec; 0 in v1,
	// whose cpu.stat does not say).
	Usage time.Duration
}

// CPUStat reads the group's cpu.stat.
func (g Group) CPUStat() (CPUStat, error) {
	b, err := os.ReadFile(filepath.Join(g.Dir(), "cpu.stat"))
	if err != nil {
		return CPUStat{}, fmt.Errorf("cgroup %s: %w", g.name, err)
	}
	return parseCPUStat(string(b)), nil
}

// parseCPUStat reads a cpu.stat text of either version.
func parseCPUStat(text string) CPUStat {
	var s CPUStat
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "nr_periods":
			s.Periods = n
		case "nr_throttled":
			s.Throttled = n
		case "throttled_time": // v1, ns
			s.ThrottledTime = time.Duration(n)
		case "throttled_usec": // v2
			s.ThrottledTime = time.Duration(n) * time.Microsecond
		case "usage_usec":
			s.Usage = time.Duration(n) * time.Microsecond
		}
	}
	return s
}

// Remove moves the processes still in the group back to the cgroup of
// the process that opened the hierarchy, and removes the group's
// directories. A group that is not there is no error.
func (g Group) Remove() error {
	var errs []error
	for _, p := range g.h.places() {
		errs = append(errs, removeDir(g.dirIn(p), p.home))
	}
	return errors.Join(errs...)
}

// removeDir moves every process of cgroup dir to home and removes dir,
// retrying while processes are still leaving it (a fork racing the move).
func removeDir(dir, home string) error {
	// A group nested in it (a budgeted process that budgeted a child of
	// its own) goes first: rmdir refuses a group with children.
	if ents, rerr := os.ReadDir(dir); rerr == nil {
		for _, e := range ents {
			if e.IsDir() {
				if err := removeDir(filepath.Join(dir, e.Name()), home); err != nil {
					return err
				}
			}
		}
	}
	var err error
	for range 100 {
		var pids []int
		pids, err = readPIDs(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		for _, pid := range pids {
			if err := writePID(home, pid); err != nil && !errors.Is(err, syscall.ESRCH) {
				return err
			}
		}
		err = syscall.Rmdir(dir)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			return permission(err, dir)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", dir, err)
}

// write writes value to a group's control file, which the kernel made:
// one that is not there is an error (a controller not enabled), not a
// file to create.
func write(dir, file, value string) error {
	p := filepath.Join(dir, file)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cgroup %s has no %s (is its controller enabled?): %w", dir, file, err)
	}
	if err != nil {
		return permission(err, p)
	}
	_, err = f.WriteString(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return permission(err, p)
}

// writePID moves pid into the cgroup dir.
func writePID(dir string, pid int) error {
	return write(dir, "cgroup.procs", strconv.Itoa(pid))
}

// readPIDs lists the processes of cgroup dir.
func readPIDs(dir string) ([]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids, nil
}
