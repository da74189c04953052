package cgroup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes a fake cgroup v2 hierarchy under a temporary directory:
// each key is a file below its root ("cgroup.controllers",
// "user.slice/cgroup.procs"), each value its content. It returns the
// root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "cgroup")
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// cgdir is a fake cgroup v2 directory's files: its controllers, those
// enabled for its children, its processes.
func cgdir(files map[string]string, dir, controllers, subtree, procs string) {
	if dir != "" {
		dir += "/"
	}
	files[dir+"cgroup.controllers"] = controllers
	files[dir+"cgroup.subtree_control"] = subtree
	files[dir+"cgroup.procs"] = procs
}

// TestV2Parent picks where groups go in cgroup v2, where no cgroup but
// the root may hold both processes and children with controllers: the
// nearest cgroup at or above this process's that has cpu for its
// children, or may have it.
func TestV2Parent(t *testing.T) {
	t.Parallel()
	const own = "user.slice/session.scope"
	for _, tc := range []struct {
		name string
		// root, slice and own's controllers, subtree_control and procs
		dirs [3][3]string
		want string // "" for the root; "-" for unavailable
	}{
		{"slice delegates cpu", [3][3]string{{"cpu memory", "cpu memory", ""}, {"cpu memory", "cpu", ""}, {"cpu", "", "42\n"}}, "user.slice"},
		{"slice may delegate cpu", [3][3]string{{"cpu memory", "cpu", ""}, {"cpu", "", ""}, {"", "", "42\n"}}, "user.slice"},
		{"slice holds processes", [3][3]string{{"cpu memory", "cpu", "1\n"}, {"cpu", "", "7\n"}, {"", "", "42\n"}}, ""},
		{"own cgroup delegates cpu (threaded)", [3][3]string{{"cpu", "cpu", ""}, {"cpu", "cpu", ""}, {"cpu", "cpu", "42\n"}}, own},
		{"hybrid: cpu bound to v1", [3][3]string{{"", "", "1\n"}, {"", "", ""}, {"", "", "42\n"}}, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{}
			for i, d := range []string{"", "user.slice", own} {
				cgdir(files, d, tc.dirs[i][0], tc.dirs[i][1], tc.dirs[i][2])
			}
			root := tree(t, files)
			got, err := v2Parent(filepath.Join(root, own))
			if tc.want == "-" {
				if !IsUnavailable(err) || !strings.Contains(err.Error(), "does not offer the cpu controller") {
					t.Fatalf("got %s, %v; want unavailable", got, err)
				}
				return
			}
			if want := filepath.Join(root, tc.want); err != nil || got != want {
				t.Fatalf("got %s, %v; want %s", got, err, want)
			}
		})
	}
}

// TestV2Writes holds the files cgroup v2 groups are limited by to the
// kernel's formats, on a fake hierarchy (the machine the tests run on may
// have cgroup v1).
func TestV2Writes(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	cgdir(files, "", "cpuset cpu memory", "", "1\n")
	cgdir(files, "lab", "", "", "42\n")
	root := tree(t, files)
	h, err := open(Layout{Version: V2, CPU: filepath.Join(root, "lab"), CPUSet: filepath.Join(root, "lab"), Memory: filepath.Join(root, "lab")})
	if err != nil {
		t.Fatal(err)
	}
	if h.Dir() != root {
		t.Fatalf("groups go in %s, want the root %s (lab holds processes)", h.Dir(), root)
	}
	g, err := h.Create(42, "x")
	if err != nil {
		t.Fatal(err)
	}
	if g.Dir() != filepath.Join(root, "etcdlab-42-x") {
		t.Fatalf("group dir %s", g.Dir())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("cgroup.subtree_control"); got != "+cpu" {
		t.Errorf("subtree_control: %q, want +cpu", got)
	}
	// The kernel makes a group's files; the fake makes them here.
	for _, f := range []string{"cpu.max", "cpuset.cpus", "memory.max", "cgroup.procs"} {
		if err := os.WriteFile(filepath.Join(g.Dir(), f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		set        func() error
		file, want string
	}{
		{func() error { return g.SetCPU(0.5) }, "cpu.max", "50000 100000"},
		{func() error { return g.SetCPU(2) }, "cpu.max", "200000 100000"},
		{func() error { return g.SetCPU(0) }, "cpu.max", "max 100000"},
		{func() error { return g.SetMemory(1 << 30) }, "memory.max", "1073741824"},
		{func() error { return g.SetMemory(0) }, "memory.max", "max"},
		{func() error { return g.SetCPUSet("1") }, "cpuset.cpus", "1"},
		{func() error { return g.Add(7) }, "cgroup.procs", "7"},
	} {
		if err := tc.set(); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if got := read("etcdlab-42-x/" + tc.file); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.file, got, tc.want)
		}
	}
	if got := read("cgroup.subtree_control"); got != "+cpuset" {
		t.Errorf("subtree_control after SetCPUSet: %q, want +cpuset", got)
	}
	if err := write(g.Dir(), "io.max", "x"); err == nil || !strings.Contains(err.Error(), "no io.max") {
		t.Errorf("writing a control file that is not there: %v", err)
	}
}
