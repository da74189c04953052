package cluster

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestWaitStopped sees a real process stop on SIGSTOP, and not before.
func TestWaitStopped(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	if waitStopped(pid, 50*time.Millisecond) {
		t.Fatal("a running process reads as stopped")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if !waitStopped(pid, 5*time.Second) {
		t.Fatal("a process given SIGSTOP did not read as stopped")
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if waitStopped(pid, 50*time.Millisecond) {
		t.Fatal("a continued process still reads as stopped")
	}
	if waitStopped(1<<30, 10*time.Millisecond) {
		t.Fatal("a process that does not exist reads as stopped")
	}
}
