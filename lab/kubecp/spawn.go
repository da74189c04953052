package kubecp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// spawner starts the components from one OS thread that lives as long as
// the control plane. Linux sends a child's parent-death signal when the
// thread that forked it exits, not the process: forking from a thread that
// never exits early makes SIGKILL-on-parent-death mean what it says (as
// lab/cluster's spawner does for members). Its methods are safe for
// concurrent use.
type spawner struct {
	reqs chan func()
	quit chan struct{}
	once sync.Once
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan func()), quit: make(chan struct{})}
	proc.GoLocked(func() {
		for {
			select {
			case r := <-s.reqs:
				r()
			case <-s.quit:
				return
			}
		}
	})
	return s
}

// close ends the spawning thread; call it once no child it started lives.
func (s *spawner) close() { s.once.Do(func() { close(s.quit) }) }

// process is one running component.
type process struct {
	name    string
	logPath string
	cmd     *exec.Cmd
	done    chan struct{} // closed once reaped
}

// startProcess starts path with args, its output appended to logPath, as
// a child killed when this process dies.
func (s *spawner) startProcess(name, path string, args []string, logPath string) (*process, error) {
	return s.startProcessEnv(name, path, args, nil, logPath)
}

// startProcessEnv is startProcess with the child's environment (nil: this
// process's).
func (s *spawner) startProcessEnv(name, path string, args, env []string, logPath string) (*process, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("kubecp: %s log: %w", name, err)
	}
	defer logf.Close()
	cmd := exec.Command(path, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,            // a terminal's Ctrl-C reaches etcdlab, which stops them in order
		Pdeathsig: syscall.SIGKILL, // no orphans, even when etcdlab is SIGKILLed
	}
	started := make(chan error, 1)
	select {
	case s.reqs <- func() {
		if err := proc.CloseOnExec(nil); err != nil {
			started <- err
			return
		}
		started <- cmd.Start()
	}:
	case <-s.quit:
		return nil, errors.New("kubecp: the spawning thread has ended")
	}
	if err := <-started; err != nil {
		return nil, fmt.Errorf("kubecp: start %s: %w", name, err)
	}
	p := &process{name: name, logPath: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, then SIGKILL after grace, and waits until the
// process is reaped.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// logTail is the last lines of the process's log, for an error.
func (p *process) logTail(n int) string {
	b, err := os.ReadFile(p.logPath)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
