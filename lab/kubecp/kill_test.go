package kubecp

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// Environment of the helper process.
const (
	envKillDir  = "KUBECP_KILL_DIR"
	envKillEtcd = "KUBECP_KILL_ETCD"
)

// childReport is what the helper prints once its control plane is ready.
type childReport struct {
	Run  string    `json:"run"`
	PIDs []proc.ID `json:"pids"`
}

// The helper process: starts a control plane in $KUBECP_KILL_DIR on the
// etcd of $KUBECP_KILL_ETCD, prints its run directory and processes, and
// waits to be killed.
func TestKilledParentHelper(t *testing.T) {
	dir := os.Getenv(envKillDir)
	if dir == "" {
		t.Skip("run by TestKillLeavesNothing")
	}
	var etcd etcdclient.Config
	if err := json.Unmarshal([]byte(os.Getenv(envKillEtcd)), &etcd); err != nil {
		t.Fatal(err)
	}
	cp, err := Start(context.Background(), Options{Binaries: binaries(t), Etcd: etcd, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cp.StartNodes(context.Background(), NodeOptions{Kubemark: kubemark(t), Count: 1}); err != nil {
		t.Fatal(err)
	}
	r := childReport{Run: cp.Dir()}
	for _, p := range cp.processes() {
		id := p.ID()
		r.PIDs = append(r.PIDs, id)
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
	select {} // until killed
}

// TestKillLeavesNothing: when the process that started a control plane
// and a hollow node is SIGKILLed, its components die with it, and the next
// Start in the same place removes the run directory it left, the next
// StartNodes the node's fake runtime socket.
func TestKillLeavesNothing(t *testing.T) {
	binaries(t) // skips when they are not built
	kubemark(t)
	sockets, _ := filepath.Glob(runtimeSockets)
	c := clustertest.Start(t, cluster.Options{Members: 1, BaseDir: clustertest.Tmpfs(t)})
	dir := t.TempDir()
	etcd, _ := json.Marshal(c.Client())
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledParentHelper$", "-test.count=1", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), envKillDir+"="+dir, envKillEtcd+"="+string(etcd))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var r childReport
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&r); err != nil || len(r.PIDs) != 4 {
		t.Fatalf("the helper's control plane: %+v, %v", r, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	clustertest.WaitFor(t, 30*time.Second, "the components to die with their parent", func() bool {
		for _, id := range r.PIDs {
			if id.Alive() {
				return false
			}
		}
		return true
	})
	if _, err := os.Stat(r.Run); err != nil {
		t.Fatalf("the killed run's directory: %v (nothing removes it before the next run)", err)
	}
	next, err := child.RunDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(r.Run); !os.IsNotExist(err) {
		t.Errorf("the killed run's directory %s survived the next run's sweep: %v", r.Run, err)
	}
	_ = os.RemoveAll(next)
	if stale, _ := filepath.Glob(runtimeSockets); len(stale) != len(sockets)+1 {
		t.Errorf("%d fake runtime sockets after the kill, want the killed node's beside the %d before", len(stale), len(sockets))
	}
	sweepRuntimeSockets()
	if left, _ := filepath.Glob(runtimeSockets); len(left) > len(sockets) {
		t.Errorf("fake runtime sockets after the sweep: %v (before the test: %v)", left, sockets)
	}
}
