// Package envinfo describes the machine a result was measured on.
package envinfo

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/result"
)

// Collect returns what can be learnt about this machine without privileges.
func Collect() result.Environment {
	env := result.Environment{
		Etcdlab: version.Etcdlab(), GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH,
		CPUs: runtime.NumCPU(), MemoryBytes: memTotal(),
	}
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		env.Kernel = cstr(u.Release[:])
	}
	return env
}

// Filesystem names the filesystem type holding dir (ext4, xfs, tmpfs, ...).
func Filesystem(dir string) string {
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil {
		return ""
	}
	switch uint64(st.Type) {
	case 0xEF53:
		return "ext4"
	case 0x58465342:
		return "xfs"
	case 0x01021994:
		return "tmpfs"
	case 0x9123683E:
		return "btrfs"
	case 0x794c7630:
		return "overlayfs"
	case 0x65735546:
		return "fuse"
	case 0x6969:
		return "nfs"
	case 0x2FC12FC1:
		return "zfs"
	}
	return "0x" + strconv.FormatUint(uint64(st.Type), 16)
}

func memTotal() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func cstr(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
