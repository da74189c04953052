// Package syscalldelay delays a child process's fsync and fdatasync
// system calls by a drawn Delay (emulate/slowfs's), with seccomp user
// notification: the child's own syscalls pause in the kernel while a
// supervisor goroutine in this process sleeps, then the kernel runs the
// real call. Nothing of the child's I/O passes through this process, so
// the mechanism's own cost is one notification round trip per sync (tens
// of microseconds), not a file system in user space.
//
// The child installs nothing itself: Wrap makes its command start as this
// program again (the shim), which sets no_new_privs, installs the filter
// with a new listener, hands the listener over an inherited Unix socket
// and execve's the real command (filters survive execve). The program's
// entry point (etcdlab's main, member.RunIfChild for test binaries) calls
// ExecIfShim first.
//
// Clean-up: the filter belongs to the child's process and ends with it;
// the supervisor sees the listener hang up and returns. If this process
// dies first, the kernel answers the child's pending and later syncs with
// ENOSYS (lab members die with their parent anyway: a parent-death
// SIGKILL).
package syscalldelay
