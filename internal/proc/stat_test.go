package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestParseStat: fields are read after the command name's last ')', which
// may hold spaces and parentheses.
func TestParseStat(t *testing.T) {
	line := "4242 (a) (b c) T 17 4242 4242 0 -1 4194560 100 0 0 0 123 45 0 0 20 0 7 0 98765 1000 10 18446744073709551615\n"
	st, err := ParseStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{State: 'T', PPID: 17, UTime: 123, STime: 45, Threads: 7, StartTime: 98765}
	if st != want || !st.Stopped() || st.CPUSeconds() != 1.68 {
		t.Errorf("got %+v (%g s), want %+v", st, st.CPUSeconds(), want)
	}
	for _, bad := range []string{"", "1 (x) S 1", "1 (x) S x 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"} {
		if _, err := ParseStat([]byte(bad)); !errors.Is(err, ErrMalformedStat) {
			t.Errorf("ParseStat(%q) = %v", bad, err)
		}
	}
	self, err := ReadStat(os.Getpid())
	if err != nil || self.PPID != os.Getppid() || self.Threads < 1 {
		t.Errorf("own stat %+v, %v", self, err)
	}
}

// TestWaitStopped sees a real process stop on SIGSTOP, and not before.
func TestWaitStopped(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	if WaitStopped(pid, 50*time.Millisecond) {
		t.Fatal("a running process reads as stopped")
	}
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if !WaitStopped(pid, 5*time.Second) {
		t.Fatal("a process given SIGSTOP did not read as stopped")
	}
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if WaitStopped(pid, 50*time.Millisecond) {
		t.Fatal("a continued process still reads as stopped")
	}
	if WaitStopped(1<<30, 10*time.Millisecond) {
		t.Fatal("a process that does not exist reads as stopped")
	}
}
