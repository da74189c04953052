package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
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

// TestStopped: a child stopped with SIGSTOP is stopped until SIGCONT; a
// dead one is not.
func TestStopped(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		sig     syscall.Signal
		state   string
		stopped bool
	}{{syscall.SIGSTOP, "T", true}, {syscall.SIGCONT, "S", false}} {
		if err := id.Signal(step.sig); err != nil {
			t.Fatal(err)
		}
		waitState(t, id.PID, step.state)
		if got := id.Stopped(); got != step.stopped {
			t.Errorf("after %v: Stopped() = %v, want %v", step.sig, got, step.stopped)
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if id.Stopped() {
		t.Error("a dead process reported stopped")
	}
}

// helperEnv makes the test binary act as a process whose main thread exits
// while another thread lives on: the shape of a member killed while one of
// its threads waits, uninterruptibly, on a dead FUSE server.
const helperEnv = "ETCDLAB_PROC_TEST_HELPER"

func init() {
	if os.Getenv(helperEnv) == "leader-exit" {
		runtime.LockOSThread() // TestMain then runs on the main thread
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "leader-exit" {
		go func() {
			time.Sleep(30 * time.Second)
			os.Exit(0)
		}()
		_, _, _ = syscall.RawSyscall(syscall.SYS_EXIT, 0, 0, 0) // this thread only
	}
	os.Exit(m.Run())
}

// state returns the state letter of pid from /proc.
func state(t *testing.T, pid int) string {
	t.Helper()
	st, err := ReadStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	return string(st.State)
}

func waitState(t *testing.T, pid int, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for state(t, pid) != want {
		if time.Now().After(deadline) {
			t.Fatalf("process %d never reached state %s", pid, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestZombies: an unreaped zombie is gone; a zombie main thread with
// another thread still running is not.
func TestZombies(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		cmd   *exec.Cmd
		alive bool
	}{
		{"exited, not reaped", exec.Command("true"), false},
		{"main thread exited, another running", exec.Command(os.Args[0], "-test.run=^$"), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.cmd.Env = append(os.Environ(), helperEnv+"=leader-exit")
			if err := tt.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = tt.cmd.Process.Kill(); _ = tt.cmd.Wait() }()
			id, err := Of(tt.cmd.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			waitState(t, id.PID, "Z")
			if got := id.Alive(); got != tt.alive {
				t.Fatalf("Alive() = %v, want %v", got, tt.alive)
			}
			_ = tt.cmd.Process.Kill()
			_ = tt.cmd.Wait()
			if !id.WaitGone(2 * time.Second) {
				t.Fatal("killed and reaped, still alive")
			}
		})
	}
}

// TestCloseOnExec opens files the way libraries calling syscall.Open do
// (inheritable) and checks a child started afterwards gets only those the
// match did not select.
func TestCloseOnExec(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) {
		fd, err := syscall.Open(filepath.Join(dir, name), syscall.O_RDWR|syscall.O_CREAT, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Close(fd) })
	}
	open("selected")
	open("kept")
	children := func() string {
		out, err := exec.Command("ls", "-l", "/proc/self/fd").CombinedOutput()
		if err != nil {
			t.Fatalf("ls: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := children(); !strings.Contains(out, "selected") || !strings.Contains(out, "kept") {
		t.Fatalf("syscall.Open's descriptors should be inherited before the call:\n%s", out)
	}
	if err := CloseOnExec(func(target string) bool { return strings.HasSuffix(target, "/selected") }); err != nil {
		t.Fatal(err)
	}
	if out := children(); strings.Contains(out, "selected") || !strings.Contains(out, "kept") {
		t.Fatalf("after CloseOnExec(selected):\n%s", out)
	}
	if err := CloseOnExec(nil); err != nil {
		t.Fatal(err)
	}
	if out := children(); strings.Contains(out, "kept") {
		t.Fatalf("after CloseOnExec(nil):\n%s", out)
	}
}
