package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Hierarchy is where the lab makes groups for one process's cgroup: the
// parent directory of its groups in each controller's hierarchy, and the
// process's own cgroup (home), where processes go back when a group is
// removed. It is a plain value, safe for concurrent use.
type Hierarchy struct {
	layout Layout
	// parent is where groups are made in the cpu hierarchy: in v1 the
	// process's own cgroup; in v2 the nearest cgroup at or above it that
	// may have children with the cpu controller (cgroup v2 lets no cgroup
	// but the root hold both processes and controlled children).
	parent string
}

// place is where a group has a directory in one hierarchy: the parent
// directory, and the home its processes go back to.
type place struct{ parent, home string }

// places are the hierarchies a group may have a directory in: in v2 the
// one; in v1 the cpu controller's first, then cpuset's and memory's where
// they are mounted.
func (h Hierarchy) places() []place {
	ps := []place{{h.parent, h.layout.CPU}}
	if h.layout.Version == V1 {
		for _, d := range []string{h.layout.CPUSet, h.layout.Memory} {
			if d != "" {
				ps = append(ps, place{d, d})
			}
		}
	}
	return ps
}

// placeOf is the hierarchy of controller ctrl ("cpu", "cpuset",
// "memory"); false when it is not mounted (v1).
func (h Hierarchy) placeOf(ctrl string) (place, bool) {
	if h.layout.Version == V2 || ctrl == "cpu" {
		return place{h.parent, h.layout.CPU}, true
	}
	d := map[string]string{"cpuset": h.layout.CPUSet, "memory": h.layout.Memory}[ctrl]
	return place{d, d}, d != ""
}

// Open finds where groups for the cgroup of process pid (0: this process)
// go, from this process's /proc/self/mountinfo and /proc/PID/cgroup. It
// writes nothing. It returns an *UnavailableError when this process
// cannot write cgroups there.
func Open(pid int) (Hierarchy, error) {
	who := "self"
	if pid > 0 {
		who = strconv.Itoa(pid)
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return Hierarchy{}, unavailable(err, "cannot read /proc/self/mountinfo: %v", err)
	}
	cg, err := os.ReadFile("/proc/" + who + "/cgroup")
	if err != nil {
		return Hierarchy{}, unavailable(err, "cannot read /proc/%s/cgroup: %v", who, err)
	}
	l, err := Detect(string(mi), string(cg))
	if err != nil {
		return Hierarchy{}, err
	}
	return open(l)
}

// open resolves a detected layout on the file system.
func open(l Layout) (Hierarchy, error) {
	if l.ReadOnly {
		return Hierarchy{}, unavailable(syscall.EROFS, "the cgroup file system holding %s is mounted read-only", l.CPU)
	}
	if _, err := os.Stat(l.CPU); err != nil {
		return Hierarchy{}, unavailable(err, "this process's cgroup %s: %v", l.CPU, errors.Unwrap(err))
	}
	h := Hierarchy{layout: l, parent: l.CPU}
	if l.Version == V2 {
		p, err := v2Parent(l.CPU)
		if err != nil {
			return Hierarchy{}, err
		}
		h.parent = p
	}
	if err := syscall.Access(h.parent, 2 /* W_OK */); err != nil {
		return Hierarchy{}, permission(err, h.parent)
	}
	return h, nil
}

// v2Parent walks up from own to the first cgroup under which a group can
// have the cpu controller: one that has it in cgroup.subtree_control
// already, or that holds no processes of its own (or is the root) and has
// it in cgroup.controllers (Create enables it there).
func v2Parent(own string) (string, error) {
	for d := own; ; d = filepath.Dir(d) {
		root := !exists(filepath.Join(d, "..", "cgroup.controllers"))
		if has(filepath.Join(d, "cgroup.subtree_control"), "cpu") {
			return d, nil
		}
		if has(filepath.Join(d, "cgroup.controllers"), "cpu") && (root || empty(filepath.Join(d, "cgroup.procs"))) {
			return d, nil
		}
		if root {
			ctl, _ := os.ReadFile(filepath.Join(d, "cgroup.controllers"))
			return "", unavailable(nil, "the cgroup v2 hierarchy at %s does not offer the cpu controller (its cgroup.controllers: %q; it may be bound to cgroup v1)", d, strings.TrimSpace(string(ctl)))
		}
	}
}

// Version returns the version of the cpu controller's hierarchy.
func (h Hierarchy) Version() Kind { return h.layout.Version }

// Layout returns where the process's own cgroups are.
func (h Hierarchy) Layout() Layout { return h.layout }

// Dir returns the directory groups are made in (in v1, the cpu
// controller's).
func (h Hierarchy) Dir() string { return h.parent }

// GroupName is the directory name of the group called name that process
// owner made: etcdlab-OWNER-NAME.
func GroupName(owner int, name string) string { return fmt.Sprintf("etcdlab-%d-%s", owner, name) }

// Group returns the group called name owned by process owner, made or
// not: nothing is read or written.
func (h Hierarchy) Group(owner int, name string) Group {
	return Group{h: h, name: GroupName(owner, name)}
}

// Create makes the group called name owned by process owner (usually
// this process; a process that manages another's processes may name it
// instead), or returns it if it exists. In v2 it enables the cpu
// controller in the parent's cgroup.subtree_control first if need be.
func (h Hierarchy) Create(owner int, name string) (Group, error) {
	if name == "" || strings.ContainsAny(name, "/\n") || name == "." || name == ".." {
		return Group{}, fmt.Errorf("cgroup name %q: must be a non-empty file name", name)
	}
	if owner <= 0 {
		return Group{}, fmt.Errorf("cgroup %s: owner pid %d", name, owner)
	}
	if h.layout.Version == V2 {
		if err := enable(h.parent, "cpu"); err != nil {
			return Group{}, err
		}
	}
	g := h.Group(owner, name)
	if err := os.Mkdir(g.Dir(), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return Group{}, permission(err, g.Dir())
	}
	return g, nil
}

// enable enables controller ctrl for the children of cgroup v2 dir.
func enable(dir, ctrl string) error {
	sub := filepath.Join(dir, "cgroup.subtree_control")
	if has(sub, ctrl) {
		return nil
	}
	err := write(dir, "cgroup.subtree_control", "+"+ctrl)
	switch {
	case err == nil || IsUnavailable(err):
		return err
	case errors.Is(err, syscall.EBUSY):
		return unavailable(err, "cannot enable the %s controller for the children of %s: it holds processes of its own", ctrl, dir)
	}
	return unavailable(err, "cannot enable the %s controller for the children of %s: %v", ctrl, dir, err)
}

// has reports whether the space-separated list in file names word.
func has(file, word string) bool {
	b, err := os.ReadFile(file)
	return err == nil && slices.Contains(strings.Fields(string(b)), word)
}

// empty reports whether a cgroup.procs file lists no process.
func empty(file string) bool {
	b, err := os.ReadFile(file)
	return err == nil && strings.TrimSpace(string(b)) == ""
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
