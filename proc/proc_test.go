package proc

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestSelfAlive(t *testing.T) {
	t.Parallel()
	id, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if !id.Alive() {
		t.Fatal("own process reported dead")
	}
	if (ID{PID: id.PID, StartTime: id.StartTime + 1}).Alive() {
		t.Fatal("a different start time must not match (PID reuse)")
	}
}

func TestChildLifecycle(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !id.Alive() {
		t.Fatal("child should be alive")
	}
	if err := id.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !id.WaitGone(2 * time.Second) {
		t.Fatal("killed child still alive")
	}
	if err := id.Signal(syscall.SIGTERM); err == nil {
		t.Fatal("signalling a dead process must fail")
	}
}
