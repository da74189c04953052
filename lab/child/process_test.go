package child

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLifecycle starts a child, pauses, resumes and stops it, and reads
// its log's tail into a StartError.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	sp := NewSpawner()
	defer sp.Close()
	logFile := filepath.Join(t.TempDir(), "child.log")
	exits := make(chan string, 1)
	p, err := sp.Start(Spec{
		Name:    "sleeper",
		Cmd:     exec.Command("sh", "-c", `echo '{"level":"warn","msg":"about to sleep","error":"none"}'; echo plain; exec sleep 30`),
		LogFile: logFile,
		OnExit:  func(p *Process) { exits <- p.Name() },
	})
	if err != nil {
		t.Fatal(err)
	}
	if !p.ID().Alive() || p.Name() != "sleeper" || p.LogFile() != logFile {
		t.Fatalf("started %+v", p.ID())
	}
	if pgid, err := syscall.Getpgid(p.ID().PID); err != nil || pgid != p.ID().PID {
		t.Errorf("process group %d (%v), want its own", pgid, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(p.Tail(5)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := strings.Join(p.Tail(5), "|"); got != "warn: about to sleep: none|plain" {
		t.Errorf("tail %q", got)
	}
	se := p.StartError(errors.New("not ready"), 1)
	if se.Error() != "sleeper did not start: not ready (log: "+logFile+")" || se.Detail() != "last lines of "+logFile+":\n  plain" || !se.LogSays("pla") {
		t.Errorf("StartError %q, detail %q", se.Error(), se.Detail())
	}
	if err := p.Signal(syscall.SIGSTOP); err != nil || !p.ID().Stopped() {
		t.Fatalf("SIGSTOP: %v, stopped %v", err, p.ID().Stopped())
	}
	if s, err := p.CPUSeconds(); err != nil || s < 0 {
		t.Errorf("CPU seconds %g, %v", s, err)
	}
	if done, _ := p.Exited(); done || p.ExitState() != "" {
		t.Fatal("exited while running")
	}
	p.Stop(syscall.SIGTERM, 5*time.Second) // paused: SIGCONT first
	if done, err := p.Exited(); !done || err == nil || p.ExitState() != "signal: terminated" {
		t.Errorf("after Stop: %v, %v, %q", done, err, p.ExitState())
	}
	if got := <-exits; got != "sleeper" {
		t.Errorf("OnExit got %q", got)
	}
	if err := p.Kill(); err == nil || !strings.Contains(err.Error(), "sleeper is not running") {
		t.Errorf("Kill after exit: %v", err)
	}
}

// TestStopKillsAfterGrace: a child that ignores the stop signal is killed
// once the grace period ends.
func TestStopKillsAfterGrace(t *testing.T) {
	t.Parallel()
	sp := NewSpawner()
	defer sp.Close()
	p, err := sp.Start(Spec{Name: "stubborn", Cmd: exec.Command("sh", "-c", `trap "" TERM; echo ready; while :; do sleep 0.05; done`), LogFile: filepath.Join(t.TempDir(), "log")})
	if err != nil {
		t.Fatal(err)
	}
	for len(p.Tail(1)) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	began := time.Now()
	p.Stop(syscall.SIGTERM, 200*time.Millisecond)
	if took := time.Since(began); took < 200*time.Millisecond || p.ExitState() != "signal: killed" {
		t.Errorf("stopped in %s: %s", took, p.ExitState())
	}
}

// TestSpawnerErrors: an enter function's error fails every request; a
// closed spawner starts nothing; a log that cannot be opened is named.
func TestSpawnerErrors(t *testing.T) {
	t.Parallel()
	entered := errors.New("no namespace")
	sp := NewSpawner(func() error { return entered })
	if err := sp.Do(func() error { return nil }); !errors.Is(err, entered) {
		t.Errorf("Do after a failed enter: %v", err)
	}
	sp.Close()
	sp.Close()
	_, err := sp.Start(Spec{Name: "x", Cmd: exec.Command("true"), LogFile: filepath.Join(t.TempDir(), "log")})
	if !errors.Is(err, ErrSpawnerClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	sp2 := NewSpawner()
	defer sp2.Close()
	_, err = sp2.Start(Spec{Name: "member m1", Cmd: exec.Command("true"), LogFile: "/no/such/dir/log"})
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "member m1: open log:") {
		t.Errorf("missing log directory: %v", err)
	}
	if Tail("/no/such/file", 3) != nil {
		t.Error("a missing log has a tail")
	}
}
