package cgroup

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Kind is a cgroup hierarchy's kind, by its version: V1 (one hierarchy
// per controller) or V2 (the unified hierarchy). (Not a release version:
// those are lab/buildcache's Version.)
type Kind int

// The cgroup kinds.
const (
	V1 Kind = 1
	V2 Kind = 2
)

func (v Kind) String() string { return "cgroup v" + strconv.Itoa(int(v)) }

// Layout is where a process's own cgroups are, in the hierarchies the lab
// uses, as Detect reads them. It is a plain value.
type Layout struct {
	// Version is the kind of the hierarchy that holds the cpu controller.
	Version Kind
	// CPU is the directory of the process's own cgroup in that hierarchy
	// ("/sys/fs/cgroup/cpu" for the root of a v1 cpu mount,
	// "/sys/fs/cgroup/user.slice/..." in v2).
	CPU string
	// CPUSet and Memory are the directories of its own cgroup in the
	// hierarchies of the cpuset and memory controllers: in v2 the same as
	// CPU (whether the controller is enabled there is seen on the file
	// system), in v1 their own mounts, "" when they are not mounted.
	CPUSet, Memory string
	// ReadOnly says the cpu controller's hierarchy is mounted read-only.
	ReadOnly bool
}

// mount is one cgroup file system from mountinfo.
type mount struct {
	root, point string
	v2          bool
	controllers []string // v1's controllers (super options)
	readOnly    bool
}

// Detect finds where the process whose /proc/PID/cgroup is cgroupFile
// has its cgroups, from mountinfo (a /proc/PID/mountinfo text). The
// hierarchy of the cpu controller decides the version: a v1 mount that
// holds it (as on hybrid systems, where v2 at /sys/fs/cgroup/unified holds
// no controllers), otherwise the cgroup2 mount. Without either it returns
// an *UnavailableError.
func Detect(mountinfo, cgroupFile string) (Layout, error) {
	mounts := parseMountinfo(mountinfo)
	paths := parseCgroupFile(cgroupFile) // controller (or "" for v2) -> path
	if l, ok, err := detectV1(mounts, paths); ok || err != nil {
		return l, err
	}
	for _, m := range mounts {
		if !m.v2 {
			continue
		}
		p, ok := paths[""]
		if !ok {
			return Layout{}, unavailable(nil, "cgroup2 is mounted at %s but this process has no cgroup v2 path (0::) in /proc/PID/cgroup", m.point)
		}
		dir, err := within(m, p)
		if err != nil {
			return Layout{}, err
		}
		return Layout{Version: V2, CPU: dir, CPUSet: dir, Memory: dir, ReadOnly: m.readOnly}, nil
	}
	return Layout{}, unavailable(nil, "no cgroup file system with the cpu controller is mounted (neither cgroup v1's cpu nor cgroup2)")
}

// detectV1 finds the v1 hierarchy of the cpu controller; ok is false when
// none is mounted.
func detectV1(mounts []mount, paths map[string]string) (Layout, bool, error) {
	dirOf := func(ctrl string) (string, *mount, error) {
		for i, m := range mounts {
			if m.v2 || !slices.Contains(m.controllers, ctrl) {
				continue
			}
			p, ok := paths[ctrl]
			if !ok {
				return "", nil, unavailable(nil, "the %s controller is mounted at %s but /proc/PID/cgroup names no %s cgroup", ctrl, m.point, ctrl)
			}
			dir, err := within(m, p)
			return dir, &mounts[i], err
		}
		return "", nil, nil
	}
	cpu, m, err := dirOf("cpu")
	if err != nil || m == nil {
		return Layout{}, false, err
	}
	l := Layout{Version: V1, CPU: cpu, ReadOnly: m.readOnly}
	// The others are optional: a group that does not use them needs none.
	l.CPUSet, _, _ = dirOf("cpuset")
	l.Memory, _, _ = dirOf("memory")
	return l, true, nil
}

// within returns the directory of cgroup path p in mount m, whose root is
// the cgroup mounted there (a container's bind mount of its own cgroup).
func within(m mount, p string) (string, error) {
	p = path.Clean("/" + p)
	root := path.Clean(m.root)
	switch {
	case root == "/":
	case p == root || strings.HasPrefix(p, root+"/"):
		p = strings.TrimPrefix(p, root)
	default:
		return "", unavailable(nil, "this process's cgroup %s is outside the cgroup mounted at %s (%s)", p, m.point, root)
	}
	return filepath.Join(m.point, filepath.FromSlash(p)), nil
}

// parseMountinfo returns the cgroup mounts of a mountinfo text:
// "ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER".
func parseMountinfo(text string) []mount {
	var out []mount
	for _, line := range strings.Split(text, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 6 || len(g) < 3 {
			continue
		}
		m := mount{root: unescape(f[3]), point: unescape(f[4])}
		for _, o := range strings.Split(f[5], ",") {
			m.readOnly = m.readOnly || o == "ro"
		}
		switch g[0] {
		case "cgroup2":
			m.v2 = true
		case "cgroup":
			m.controllers = strings.Split(g[2], ",")
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// parseCgroupFile maps each v1 controller to its cgroup path, and "" to
// the v2 path, from a /proc/PID/cgroup text
// ("4:cpu,cpuacct:/user.slice", "0::/user.slice/...").
func parseCgroupFile(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			out[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c != "" {
				out[c] = parts[2]
			}
		}
	}
	return out
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
