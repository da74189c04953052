package child

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the test reads while exec writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDeathSignalAndWriters: without a LogFile the child writes where its
// command says; its DeathSignal (SIGINT here) is what it gets when the
// spawning thread ends, and Wait returns how it ended.
func TestDeathSignalAndWriters(t *testing.T) {
	t.Parallel()
	sp := NewSpawner()
	var out, errOut syncBuffer
	cmd := exec.Command("sh", "-c", `trap 'echo interrupted; exit 7' INT; echo ready; echo to-stderr >&2; while :; do sleep 0.05; done`)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	p, err := sp.Start(Spec{Name: "cleaner", Cmd: cmd, DeathSignal: syscall.SIGINT})
	if err != nil {
		sp.Close()
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "ready") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sp.Close() // the spawning thread ends: the kernel sends SIGINT
	var ee *exec.ExitError
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		_ = p.Kill()
		t.Fatal("no parent-death signal after the spawning thread ended")
	}
	if err := p.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Errorf("Wait: %v, want exit status 7", err)
	}
	if out.String() != "ready\ninterrupted\n" || errOut.String() != "to-stderr\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if p.Tail(3) != nil || p.LogFile() != "" {
		t.Errorf("a child without a log file has a tail: %q", p.Tail(3))
	}
}
