package syscalldelay

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"golang.org/x/sys/unix"
)

// notif is struct seccomp_notif (80 bytes), resp struct
// seccomp_notif_resp (24 bytes), as SECCOMP_IOCTL_NOTIF_RECV and _SEND
// take them.
type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type resp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

const flagContinue = 1 // SECCOMP_USER_NOTIF_FLAG_CONTINUE

// Options say which syncs a Supervisor delays and by how much.
type Options struct {
	// Delay is drawn for each delayed sync; nil delays none (the
	// mechanism's own cost alone).
	Delay *slowfs.Delay
	// Only, if set, picks the files whose syncs are delayed by their path
	// (slowfs.WALOnly: etcd's WAL); the others continue at once.
	Only func(path string) bool
}

// Supervisor answers one child's notified syncs: each in a goroutine of
// its own that sleeps the drawn delay, then lets the kernel run the call.
// It waits for notifications in the runtime's poller, holding no thread.
// It ends when the child's filter goes away (the child exited) or at
// Close. Its methods are safe for concurrent use.
type Supervisor struct {
	listener *os.File
	opts     Options
	done     chan struct{}
	mu       sync.Mutex
	err      error
	n        int64
	closing  bool
}

// Supervise starts answering the notifications of listener (Pending's),
// which it owns and closes when it ends.
func Supervise(listener *os.File, opts Options) (*Supervisor, error) {
	// a non-blocking copy, which NewFile hands to the runtime's poller
	fd, err := unix.Dup(int(listener.Fd()))
	listener.Close()
	if err != nil {
		return nil, fmt.Errorf("syscall delay: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("syscall delay: %w", err)
	}
	l := os.NewFile(uintptr(fd), "seccomp-listener")
	s := &Supervisor{listener: l, opts: opts, done: make(chan struct{})}
	go s.loop()
	return s, nil
}

// Done is closed when the supervisor has ended.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// Close ends the supervisor and waits for it; syncs still waiting then
// fail in the child with ENOSYS. It returns the error that ended it, if
// any.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	_ = s.listener.SetReadDeadline(time.Now())
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Count is how many syncs the supervisor has been notified of.
func (s *Supervisor) Count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *Supervisor) loop() {
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		s.listener.Close()
		close(s.done)
	}()
	rc, err := s.listener.SyscallConn()
	if err != nil {
		s.fail(fmt.Errorf("syscall delay: %w", err))
		return
	}
	err = rc.Read(func(fdp uintptr) bool {
		lfd := int(fdp)
		for {
			fds := []unix.PollFd{{Fd: int32(lfd), Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, 0); err != nil && !errors.Is(err, unix.EINTR) {
				s.fail(fmt.Errorf("syscall delay: poll: %w", err))
				return true
			}
			if fds[0].Revents&unix.POLLIN == 0 {
				// POLLHUP: the child's filter is gone; nothing: wait
				return fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0
			}
			var n notif // zeroed, as the kernel requires
			if err := ioctl(lfd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
				if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINTR) {
					continue // the caller was interrupted or died meanwhile
				}
				s.fail(fmt.Errorf("syscall delay: receive: %w", err))
				return true
			}
			s.mu.Lock()
			s.n++
			s.mu.Unlock()
			d := s.delay(n)
			if d <= 0 {
				s.answer(lfd, n.id)
				continue
			}
			deadline := monotonic() + int64(d)
			wg.Add(1)
			go func(id uint64) {
				defer wg.Done()
				s.sleepAnswer(lfd, id, deadline)
			}(n.id)
		}
	})
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	if err != nil && !closing {
		s.fail(fmt.Errorf("syscall delay: wait: %w", err))
	}
}

// delay draws the delay of notified call n: none when Only rejects the
// file it syncs.
func (s *Supervisor) delay(n notif) time.Duration {
	if s.opts.Delay == nil {
		return 0
	}
	if s.opts.Only != nil {
		path, err := os.Readlink("/proc/" + strconv.FormatUint(uint64(n.pid), 10) + "/fd/" + strconv.FormatUint(n.args[0], 10))
		if err != nil || !s.opts.Only(path) {
			return 0
		}
	}
	return s.opts.Delay.Sample()
}

// answer lets the kernel run call id as the child asked.
func (s *Supervisor) answer(lfd int, id uint64) {
	r := resp{id: id, flags: flagContinue}
	// ENOENT: the call was interrupted or its thread died meanwhile.
	if err := ioctl(lfd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&r)); err != nil && !errors.Is(err, unix.ENOENT) {
		s.fail(fmt.Errorf("syscall delay: answer: %w", err))
	}
}

func (s *Supervisor) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// rawTail is the end of a delay slept without giving up the runtime's
// processor, so that the answer does not wait for one after the sleep.
const rawTail = 300 * time.Microsecond

// sleepAnswer answers call id at deadline (CLOCK_MONOTONIC, ns): up to
// rawTail before it the thread sleeps as a blocking call (the runtime may
// hand its processor to others), then to the deadline and the answer as
// raw calls. Not time.Sleep: the runtime's timers fire up to a millisecond
// late for sub-millisecond sleeps.
func (s *Supervisor) sleepAnswer(lfd int, id uint64, deadline int64) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	if early := unix.NsecToTimespec(deadline - int64(rawTail)); deadline-int64(rawTail) > monotonic() {
		for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &early, nil) == unix.EINTR {
		}
	}
	ts := unix.NsecToTimespec(deadline)
	for {
		_, _, errno := unix.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		if errno != unix.EINTR {
			break
		}
	}
	r := resp{id: id, flags: flagContinue}
	_, _, errno := unix.RawSyscall(unix.SYS_IOCTL, uintptr(lfd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&r)))
	if errno != 0 && errno != unix.ENOENT {
		s.fail(fmt.Errorf("syscall delay: answer: %w", errno))
	}
}

// monotonic is CLOCK_MONOTONIC in nanoseconds.
func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}
