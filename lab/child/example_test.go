package child_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
)

// Anything the lab starts is a child.Process: one Spawner (its thread
// lives as long as the children, so their parent-death SIGKILL means
// etcdlab's death), one Spec per child, Stop at the end.
func Example() {
	dir, _ := os.MkdirTemp("", "child-example-")
	defer os.RemoveAll(dir)
	sp := child.NewSpawner() // child.NewSpawner(enterNamespace) to start children inside one
	defer sp.Close()
	exited := make(chan string, 1)
	p, err := sp.Start(child.Spec{
		Name:    "sleeper",
		Cmd:     exec.Command("sh", "-c", "echo started; exec sleep 60"),
		LogFile: filepath.Join(dir, "sleeper.log"),
		OnExit:  func(p *child.Process) { exited <- p.Name() }, // on the reaping goroutine
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for len(p.Tail(1)) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(p.Tail(1)[0])
	p.Stop(syscall.SIGTERM, 5*time.Second) // SIGKILL after 5 s; returns once reaped
	fmt.Println(p.ExitState())
	fmt.Println(<-exited, "exited")
	// Output:
	// started
	// signal: terminated
	// sleeper exited
}
