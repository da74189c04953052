package syscalldelay

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Environment through which Wrap asks the shim to install the filter: the
// inherited socket's descriptor and the program to execve.
const (
	envFD   = "ETCDLAB_SYSCALLDELAY_FD"
	envExec = "ETCDLAB_SYSCALLDELAY_EXEC"
)

// shimFailed is the exit code of a shim that could not install the filter
// or execve; it has written why to stderr.
const shimFailed = 126

// ExecIfShim installs the filter and execve's the real command when this
// process was started by Wrap (it then never returns), and returns
// shim false otherwise. A program whose children Wrap starts (etcdlab, a
// test binary) calls it first thing in main or TestMain. When the shim
// fails it writes one line to stderr and returns the exit code the
// process must end with at once (shim true): it is a shim, not the
// program.
func ExecIfShim() (code int, shim bool) {
	fdText, ok := os.LookupEnv(envFD)
	if !ok {
		return 0, false
	}
	err := execShim(fdText, os.Getenv(envExec)) // returns only on failure
	fmt.Fprintln(os.Stderr, "etcdlab syscall-delay shim:", err)
	return shimFailed, true
}

// execShim runs on one locked thread: the filter is the thread's, and the
// same thread execve's.
func execShim(fdText, path string) error {
	runtime.LockOSThread()
	sock, err := strconv.Atoi(fdText)
	if err != nil || sock < 3 || path == "" {
		return fmt.Errorf("bad %s=%q or %s=%q", envFD, fdText, envExec, path)
	}
	listener, err := install()
	if err != nil {
		return err
	}
	if err := unix.Sendmsg(sock, []byte{1}, unix.UnixRights(listener), nil, 0); err != nil {
		return fmt.Errorf("hand the listener to the parent: %w", err)
	}
	unix.Close(listener)
	unix.Close(sock)
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envFD+"=") && !strings.HasPrefix(kv, envExec+"=") {
			env = append(env, kv)
		}
	}
	err = unix.Exec(path, os.Args, env) // returns only on failure
	return fmt.Errorf("execve %s: %w", path, err)
}

// Pending is a command Wrap prepared, started or about to be: Listener
// receives its filter's listener once the shim has installed it.
type Pending struct {
	parent *os.File
	child  *os.File
}

// Wrap makes cmd start through the shim: self (a program that calls
// ExecIfShim: etcdlab, or this test binary) with cmd's arguments and
// environment, which installs the filter and execve's cmd.Path. Call it
// after cmd's Env and ExtraFiles are set; it adds one descriptor. After
// the start, call Started, then Listener. Not safe for concurrent use.
func Wrap(cmd *exec.Cmd, self string) (*Pending, error) {
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("syscall delay: socket pair: %w", err)
	}
	p := &Pending{parent: os.NewFile(uintptr(fds[0]), "syscalldelay-parent"), child: os.NewFile(uintptr(fds[1]), "syscalldelay-child")}
	cmd.ExtraFiles = append(cmd.ExtraFiles, p.child)
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, envFD+"="+strconv.Itoa(2+len(cmd.ExtraFiles)), envExec+"="+cmd.Path)
	cmd.Path = self
	return p, nil
}

// Started closes the child's end of the socket in this process, so that a
// shim that dies before handing the listener over is an end of file for
// Listener. Call it once the command started (or failed to).
func (p *Pending) Started() { p.child.Close() }

// Close releases the socket when the command did not start (Listener
// does it otherwise).
func (p *Pending) Close() {
	p.child.Close()
	p.parent.Close()
}

// Listener waits up to timeout for the shim's listener and returns it,
// and closes the socket. Its error says the shim died or took too long.
func (p *Pending) Listener(timeout time.Duration) (*os.File, error) {
	defer p.parent.Close()
	fd := int(p.parent.Fd())
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(timeout/time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("syscall delay: wait for the shim: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("syscall delay: the shim sent no listener in %s", timeout)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("syscall delay: receive the listener: %w", err)
	}
	if n == 0 && oobn == 0 {
		return nil, errors.New("syscall delay: the shim exited before sending its listener (see the child's log)")
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, fmt.Errorf("syscall delay: the shim's message carries no descriptor: %v", err)
	}
	rights, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(rights) != 1 {
		return nil, fmt.Errorf("syscall delay: the shim's message carries no descriptor: %v", err)
	}
	return os.NewFile(uintptr(rights[0]), "seccomp-listener"), nil
}
