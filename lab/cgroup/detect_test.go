package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetect reads the hierarchies from mountinfo and /proc/PID/cgroup
// texts as machines write them (testdata/NAME.mountinfo, NAME.cgroup).
func TestDetect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want Layout
		err  string // part of the *UnavailableError's reason
	}{
		// This machine: v1 holds cpu, cpuset, memory; cgroup2 at
		// /sys/fs/cgroup/unified holds no controllers; memory is nested.
		{name: "hybrid", want: Layout{Version: V1, CPU: "/sys/fs/cgroup/cpu", CPUSet: "/sys/fs/cgroup/cpuset", Memory: "/sys/fs/cgroup/memory/sandbox/4127"}},
		{name: "v2", want: Layout{Version: V2, CPU: "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope", CPUSet: "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope", Memory: "/sys/fs/cgroup/user.slice/user-0.slice/session-3.scope"}},
		// cpu and cpuacct co-mounted; each controller has its own path.
		{name: "v1-nested", want: Layout{Version: V1, CPU: "/sys/fs/cgroup/cpu,cpuacct/user.slice", CPUSet: "/sys/fs/cgroup/cpuset", Memory: "/sys/fs/cgroup/memory/user.slice/user-0.slice/session-2.scope"}},
		// A container's bind mount of its own cgroup: the mount's root is
		// taken off the path.
		{name: "v1-container", want: Layout{Version: V1, CPU: "/sys/fs/cgroup/cpu,cpuacct/sub", CPUSet: "/sys/fs/cgroup/cpuset"}},
		{name: "v2-container-ro", want: Layout{Version: V2, CPU: "/sys/fs/cgroup", CPUSet: "/sys/fs/cgroup", Memory: "/sys/fs/cgroup", ReadOnly: true}},
		{name: "escaped", want: Layout{Version: V2, CPU: "/mnt/my cgroups/lab", CPUSet: "/mnt/my cgroups/lab", Memory: "/mnt/my cgroups/lab"}},
		{name: "none", err: "no cgroup file system with the cpu controller"},
		{name: "outside", err: "outside the cgroup mounted at /sys/fs/cgroup/cpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			mi := readFile(t, tc.name+".mountinfo")
			cg := readFile(t, tc.name+".cgroup")
			got, err := Detect(mi, cg)
			if tc.err != "" {
				var u *UnavailableError
				if !errors.As(err, &u) || !strings.Contains(u.Reason, tc.err) {
					t.Fatalf("error %v, want an *UnavailableError saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestParseCPUStat reads both versions' cpu.stat.
func TestParseCPUStat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		want       CPUStat
	}{
		{"v1", "nr_periods 40\nnr_throttled 38\nthrottled_time 3068158170\nnr_bursts 0\nburst_time 0\n", CPUStat{Periods: 40, Throttled: 38, ThrottledTime: 3068158170}},
		{"v2", "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\nnr_periods 12\nnr_throttled 7\nthrottled_usec 250000\n", CPUStat{Periods: 12, Throttled: 7, ThrottledTime: 250000000, Usage: 1500000000}},
		{"empty", "", CPUStat{}},
	} {
		if got := parseCPUStat(tc.text); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestOwner reads the owner pid back from group names, and no other name.
func TestOwner(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		dir   string
		owner int
	}{
		{GroupName(42, "cpulimit-m1"), 42},
		{"etcdlab-7-x", 7},
		{"etcdlab-7-", 0},
		{"etcdlab-x-y", 0},
		{"etcdlab--1-y", 0},
		{"user.slice", 0},
	} {
		got, ok := Owner(tc.dir)
		if got != tc.owner || ok != (tc.owner != 0) {
			t.Errorf("Owner(%q) = %d, %v; want %d", tc.dir, got, ok, tc.owner)
		}
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
