package child

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// Spec is a child to start.
type Spec struct {
	// Name is what messages call the child ("member m1",
	// "kube-apiserver").
	Name string
	// Cmd is the command: Path, Args, Env (nil: this process's), Dir,
	// ExtraFiles, and Stdout and Stderr when there is no LogFile. Start
	// sets its SysProcAttr.
	Cmd *exec.Cmd
	// LogFile, if set, receives the child's stdout and stderr, appended
	// (Start sets Cmd.Stdout and Cmd.Stderr). Without it the child writes
	// where Cmd says, and Tail and StartError have no lines.
	LogFile string
	// DeathSignal is what the kernel sends the child when etcdlab dies
	// (0: SIGKILL). A child that must clean up after itself (an agent
	// deletes its keys) asks for SIGINT.
	DeathSignal syscall.Signal
	// OnExit, if set, runs once the child has been reaped, from the
	// reaping goroutine.
	OnExit func(*Process)
}

// Process is one started child. Its methods are safe for concurrent use.
type Process struct {
	name    string
	logFile string
	id      proc.ID
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has been reaped

	mu      sync.Mutex
	waitErr error
}

// Start starts spec's command from the spawning thread: in a process group
// of its own, sent spec.DeathSignal (SIGKILL) by the kernel when that
// thread (etcdlab) dies, inheriting only the descriptors the command
// names, its output appended to spec.LogFile if set.
func (s *Spawner) Start(spec Spec) (*Process, error) {
	cmd := spec.Cmd
	if spec.LogFile != "" {
		logf, err := os.OpenFile(spec.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s: open log: %w", spec.Name, err)
		}
		defer logf.Close()
		cmd.Stdout, cmd.Stderr = logf, logf
	}
	death := spec.DeathSignal
	if death == 0 {
		death = syscall.SIGKILL
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid:   true,  // a terminal's Ctrl-C reaches etcdlab, which stops its children in order
		Pdeathsig: death, // no orphans, even when etcdlab is SIGKILLed
	}
	err := s.Do(func() error {
		// The child inherits only what cmd names: not what a library
		// opened with syscall.Open (go-fuse does), nor what etcdlab's own
		// parent passed down.
		if err := proc.CloseOnExec(nil); err != nil {
			return err
		}
		return cmd.Start()
	})
	if err != nil {
		return nil, fmt.Errorf("%s: start %s: %w", spec.Name, cmd.Path, err)
	}
	p := &Process{name: spec.Name, logFile: spec.LogFile, cmd: cmd, done: make(chan struct{})}
	p.id, _ = proc.Of(cmd.Process.Pid)
	if p.id.PID == 0 {
		p.id.PID = cmd.Process.Pid
	}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.waitErr = err
		p.mu.Unlock()
		close(p.done)
		if spec.OnExit != nil {
			spec.OnExit(p)
		}
	}()
	return p, nil
}

// Name is what messages call the child (Spec.Name).
func (p *Process) Name() string { return p.name }

// LogFile is where the child's output goes.
func (p *Process) LogFile() string { return p.logFile }

// ID identifies the process (its PID and start time).
func (p *Process) ID() proc.ID { return p.id }

// Done is closed once the process has been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has been reaped, and how it ended
// (Wait's error).
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return true, p.waitErr
	default:
		return false, nil
	}
}

// Wait waits until the process has been reaped and returns how it ended:
// nil for exit status 0, an *exec.ExitError otherwise (its output copied
// to the end, when Cmd's Stdout or Stderr was not a file).
func (p *Process) Wait() error {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waitErr
}

// ExitState says how a reaped process ended ("exit status 1", "signal:
// killed"); "" while it runs.
func (p *Process) ExitState() string {
	if done, _ := p.Exited(); !done {
		return ""
	}
	return p.cmd.ProcessState.String()
}

// Signal sends sig unless the process has exited. After SIGSTOP it waits
// (up to a second, best effort) until every thread is stopped, so that a
// paused child answers nothing once it returns.
func (p *Process) Signal(sig syscall.Signal) error {
	if done, _ := p.Exited(); done {
		return fmt.Errorf("%s is not running", p.name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	if sig == syscall.SIGSTOP {
		proc.WaitStopped(p.cmd.Process.Pid, time.Second)
	}
	return nil
}

// Stop asks the process to end with sig (after SIGCONT, in case it is
// paused), kills it if it has not exited within grace, and returns once it
// has been reaped.
func (p *Process) Stop(sig syscall.Signal, grace time.Duration) {
	if done, _ := p.Exited(); done {
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

// Kill ends the process at once and returns once it has been reaped.
func (p *Process) Kill() error {
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.done
	return nil
}

// CPUSeconds is the CPU time the process has used so far (user and
// system, from /proc).
func (p *Process) CPUSeconds() (float64, error) {
	st, err := proc.ReadStat(p.cmd.Process.Pid)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", p.name, err)
	}
	return st.CPUSeconds(), nil
}

// Tail is the last n readable lines of the process's log (see Tail).
func (p *Process) Tail(n int) []string { return Tail(p.logFile, n) }

// StartError is the error for a process that did not start as it should
// (why says how), with the last n lines of its log.
func (p *Process) StartError(why error, n int) *StartError {
	return &StartError{Name: p.name, Err: why, LogFile: p.logFile, Tail: p.Tail(n)}
}
