package child

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// helperEnv makes the test binary the parent of TestKillLeavesNothing: it
// starts a child from a Spawner, prints the child's PID, and waits to be
// killed.
const helperEnv = "ETCDLAB_CHILD_TEST_PARENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		sp := NewSpawner()
		p, err := sp.Start(Spec{Name: "orphan", Cmd: exec.Command("sleep", "60"), LogFile: filepath.Join(dir, "orphan.log")})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(p.ID().PID, p.ID().StartTime)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKillLeavesNothing: when the process that started a child is killed
// with SIGKILL, the kernel kills the child (its parent-death signal, sent
// because the spawning thread lived until its process died).
func TestKillLeavesNothing(t *testing.T) {
	t.Parallel()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), helperEnv+"="+t.TempDir())
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = parent.Process.Kill(); _ = parent.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	f := strings.Fields(line)
	if err != nil || len(f) != 2 {
		t.Fatalf("parent said %q (%v)", line, err)
	}
	pid, _ := strconv.Atoi(f[0])
	st, _ := strconv.ParseUint(f[1], 10, 64)
	orphan := proc.ID{PID: pid, StartTime: st}
	time.Sleep(100 * time.Millisecond) // the parent's other threads come and go meanwhile
	if !orphan.Alive() {
		t.Fatal("the child died while its parent lives")
	}
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	if !orphan.WaitGone(5 * time.Second) {
		_ = orphan.Signal(syscall.SIGKILL)
		t.Fatal("the child outlived its killed parent")
	}
}
