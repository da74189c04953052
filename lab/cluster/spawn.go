package cluster

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/member"
)

// spawner starts member processes from one OS thread that stays alive for
// the cluster's lifetime. Linux delivers a child's parent-death signal when
// the thread that forked it exits, not the process; forking from a thread
// that never exits makes the signal mean what it says. The thread may first
// enter namespaces (the emulated network's, a private mount namespace for
// slow disks), so children are born in them; work that must happen in
// those namespaces (mounting a slow disk) runs on it too. Its methods are
// safe for concurrent use and run one request at a time.
type spawner struct {
	reqs chan func(entered error)
	quit chan struct{}
	once sync.Once
}

// newSpawner starts the spawning thread; enter, in order, runs on it first.
// If one fails, every request fails with its error.
func newSpawner(enter ...func() error) *spawner {
	s := &spawner{reqs: make(chan func(error)), quit: make(chan struct{})}
	// A thread of its own, never the main one and never unlocked: it and its
	// namespaces end with the goroutine.
	proc.GoLocked(func() {
		var err error
		for _, f := range enter {
			if err = f(); err != nil {
				break
			}
		}
		for {
			select {
			case r := <-s.reqs:
				r(err)
			case <-s.quit:
				return
			}
		}
	})
	return s
}

// do runs f on the spawning thread and returns its error.
func (s *spawner) do(f func() error) error {
	done := make(chan error, 1)
	select {
	case s.reqs <- func(entered error) {
		if entered != nil {
			done <- entered
			return
		}
		done <- f()
	}:
	case <-s.quit:
		return errors.New("the cluster's spawning thread has ended")
	}
	return <-done
}

// start starts cmd from the spawning thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	return s.do(func() error {
		// The member inherits only what cmd names: not what a library
		// opened with syscall.Open (go-fuse does), nor what etcdlab's own
		// parent passed down.
		if err := proc.CloseOnExec(nil); err != nil {
			return err
		}
		return cmd.Start()
	})
}

// close ends the spawner. Call it only once no child it started is alive
// and nothing it mounted is still mounted.
func (s *spawner) close() { s.once.Do(func() { close(s.quit) }) }

// process is one running member process. Its fields are set before the
// process starts, except those guarded by mu.
type process struct {
	name       string
	configPath string
	logPath    string
	id         proc.ID
	cmd        *exec.Cmd
	pipe       *os.File      // write end; the member sees EOF when we exit
	done       chan struct{} // closed when the process has been reaped

	mu      sync.Mutex
	waitErr error
	paused  bool
}

// startProcess launches a member process for the configuration at
// configPath: exe's embedded etcd, or the etcd binary etcd when set.
// Its stdout and stderr are appended to logPath. onExit runs after the process
// is reaped, from the reaping goroutine.
func startProcess(sp *spawner, exe, etcd, name, configPath, logPath string, onExit func(*process)) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("member %s: open log: %w", name, unwrapPath(err))
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	cmd := memberCommand(exe, etcd, configPath)
	cmd.Env = append(os.Environ(), member.EnvConfig+"="+configPath, member.EnvParentFD+"=3")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pr}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's Ctrl-C reaches etcdlab, which stops members in order
		Pdeathsig: syscall.SIGKILL, // no orphans, even when etcdlab is SIGKILLed
	}
	if err := sp.start(cmd); err != nil {
		pw.Close()
		return nil, fmt.Errorf("member %s: start %s: %w", name, exe, err)
	}
	p := &process{name: name, configPath: configPath, logPath: logPath, cmd: cmd, pipe: pw, done: make(chan struct{})}
	p.id, _ = proc.Of(cmd.Process.Pid)
	if p.id.PID == 0 {
		p.id.PID = cmd.Process.Pid
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		pw.Close()
		close(p.done)
		if onExit != nil {
			onExit(p)
		}
	}()
	return p, nil
}

// exited reports whether the process has been reaped, and how it ended.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return true, p.waitErr
	default:
		return false, nil
	}
}

// signal sends sig unless the process has exited.
func (p *process) signal(sig syscall.Signal) error {
	if done, _ := p.exited(); done {
		return fmt.Errorf("member %s is not running", p.name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("member %s: %w", p.name, err)
	}
	if sig == syscall.SIGSTOP {
		// Best effort: a member whose threads do not all read as stopped
		// within the second is still reported paused (it will be).
		waitStopped(p.cmd.Process.Pid, time.Second)
	}
	p.mu.Lock()
	switch sig {
	case syscall.SIGSTOP:
		p.paused = true
	case syscall.SIGCONT:
		p.paused = false
	}
	p.mu.Unlock()
	return nil
}

// stop asks the member to stop with sig (after SIGCONT if it is paused) and
// kills it if it has not exited within grace.
func (p *process) stop(sig syscall.Signal, grace time.Duration) {
	if done, _ := p.exited(); done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the member at once and waits until it is reaped.
func (p *process) kill() error {
	if err := p.signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.done
	return nil
}
