package syscalldelay

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// syscalls are the calls the filter hands to the supervisor: the ones
// etcd's WAL and bbolt sync with (etcd does not use sync_file_range).
func syscalls() []uint32 { return []uint32{unix.SYS_FSYNC, unix.SYS_FDATASYNC} }

// auditArch is seccomp_data.arch for this program's architecture.
func auditArch() (uint32, error) {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64, nil
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64, nil
	}
	return 0, fmt.Errorf("seccomp syscall delay: architecture %s is not supported", runtime.GOARCH)
}

// program is the BPF filter: on this architecture, each call of syscalls
// goes to the listener; everything else is allowed.
func program() ([]unix.SockFilter, error) {
	arch, err := auditArch()
	if err != nil {
		return nil, err
	}
	const (
		offNR   = 0 // seccomp_data.nr
		offArch = 4 // seccomp_data.arch
	)
	calls := syscalls()
	n := uint8(len(calls))
	p := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offArch},
		// another architecture's calls: allow (skip the checks and notify)
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: arch, Jt: 0, Jf: n + 1},
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: offNR},
	}
	for i, nr := range calls {
		// match: jump over the remaining checks and the allow to notify
		p = append(p, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jt: n - uint8(i), Jf: 0})
	}
	return append(p,
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
		unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
	), nil
}

// install sets no_new_privs and installs the filter on the calling thread
// (the caller locks it: the thread that execve's), returning the listener.
func install() (int, error) {
	p, err := program()
	if err != nil {
		return -1, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("seccomp syscall delay: no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(p)), Filter: &p[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(p)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp syscall delay: install the filter: %w", errno)
	}
	return int(fd), nil
}

// Available says why seccomp user notification cannot delay a child's
// syncs here, or nil: it starts nothing, and checks that the kernel knows
// the user-notification action.
func Available() error {
	if _, err := auditArch(); err != nil {
		return err
	}
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return fmt.Errorf("seccomp syscall delay: the kernel has no seccomp user notification: %w", errno)
	}
	return nil
}
