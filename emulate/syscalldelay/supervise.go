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
	// Lead is taken off each drawn delay (a draw under it is answered at
	// once): the mechanism's own cost per delayed sync, which the child
	// pays on top of the delay (the notification's wake-up of this
	// thread, the answer's of the child's, and a Go child's return from
	// a blocking call), so that the child's mean sync is the delay's.
	Lead time.Duration
}

// Supervisor answers one child's notified syncs from one OS thread of
// its own: it receives each notification, draws its delay and answers it
// at its deadline (set early by how late the thread has been waking for
// the last few dozen), the thread sleeping in ppoll until the earliest
// deadline or the next notification, so a delayed sync costs two thread
// wake-ups (the notification, the deadline) and no hand-over between
// goroutines. It ends when the child's filter goes away (the child
// exited) or at Close. Its methods are safe for concurrent use.
type Supervisor struct {
	listener *os.File
	opts     Options
	wakeR    *os.File
	wakeW    *os.File
	done     chan struct{}
	once     sync.Once
	mu       sync.Mutex
	err      error
	n        int64
}

// Supervise starts answering the notifications of listener (Pending's),
// which it owns and closes when it ends.
func Supervise(listener *os.File, opts Options) (*Supervisor, error) {
	r, w, err := os.Pipe()
	if err != nil {
		listener.Close()
		return nil, fmt.Errorf("syscall delay: %w", err)
	}
	s := &Supervisor{listener: listener, opts: opts, wakeR: r, wakeW: w, done: make(chan struct{})}
	go s.loop()
	return s, nil
}

// Done is closed when the supervisor has ended.
func (s *Supervisor) Done() <-chan struct{} { return s.done }

// Close ends the supervisor and waits for it: it first lets every sync it
// holds continue; later syncs fail in the child with ENOSYS. It returns
// the error that ended it, if any.
func (s *Supervisor) Close() error {
	s.once.Do(func() { s.wakeW.Close() })
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

// maxLate caps one wake-up's lateness in the supervisor's average: a
// thread preempted for milliseconds on a busy machine is not the
// mechanism's cost, and must not set the next deadlines that much early.
const maxLate = int64(100 * time.Microsecond)

// held is a sync waiting for its deadline (CLOCK_MONOTONIC, ns).
type held struct {
	id       uint64
	deadline int64
}

func (s *Supervisor) loop() {
	// The thread is this loop's alone, and ends with it (never unlocked).
	runtime.LockOSThread()
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1000, 0, 0, 0)
	lfd, wfd := int(s.listener.Fd()), int(s.wakeR.Fd())
	var pending []held
	// late is how late this thread wakes for a deadline (an average over
	// the last few dozen, ns): later deadlines are set that much earlier.
	var late int64
	defer func() {
		for _, h := range pending {
			s.answer(lfd, h.id)
		}
		s.listener.Close()
		s.wakeR.Close()
		close(s.done)
	}()
	fds := []unix.PollFd{{Fd: int32(lfd), Events: unix.POLLIN}, {Fd: int32(wfd), Events: unix.POLLIN}}
	for {
		var timeout *unix.Timespec
		if len(pending) > 0 {
			first := pending[0].deadline
			for _, h := range pending[1:] {
				first = min(first, h.deadline)
			}
			ts := unix.NsecToTimespec(max(0, first-monotonic()))
			timeout = &ts
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		_, err := unix.Ppoll(fds, timeout, nil)
		if err != nil && !errors.Is(err, unix.EINTR) {
			s.fail(fmt.Errorf("syscall delay: poll: %w", err))
			return
		}
		now := monotonic()
		kept := pending[:0]
		for _, h := range pending {
			if h.deadline <= now {
				s.answer(lfd, h.id)
				late += (min(now-h.deadline, maxLate) - late) / 16
			} else {
				kept = append(kept, h)
			}
		}
		pending = kept
		if fds[1].Revents != 0 {
			return // Close
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			if fds[0].Revents&(unix.POLLHUP|unix.POLLERR) != 0 {
				return // the child's filter is gone
			}
			continue
		}
		var n notif // zeroed, as the kernel requires
		if err := ioctl(lfd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINTR) {
				continue // the caller was interrupted or died meanwhile
			}
			s.fail(fmt.Errorf("syscall delay: receive: %w", err))
			return
		}
		s.mu.Lock()
		s.n++
		s.mu.Unlock()
		if d := int64(s.delay(n)-s.opts.Lead) - late; d > 0 {
			pending = append(pending, held{id: n.id, deadline: now + d})
		} else {
			s.answer(lfd, n.id)
		}
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
