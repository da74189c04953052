package kubecp

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// runPrefix starts every run directory's name: run-PID-STARTTIME-RANDOM,
// naming the process that made it.
const runPrefix = "run-"

// newRunDir removes the run directories under base whose process is gone
// (a run killed before its Stop) and makes one for this process.
func newRunDir(base string) (string, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("kubecp: %w", err)
	}
	sweep(base)
	self, err := proc.Self()
	if err != nil {
		return "", fmt.Errorf("kubecp: %w", err)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-%d-", runPrefix, self.PID, self.StartTime))
	if err != nil {
		return "", fmt.Errorf("kubecp: %w", err)
	}
	return dir, nil
}

// sweep removes base's run directories of processes that are gone.
func sweep(base string) {
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		id, ok := ownerOf(e.Name())
		if ok && !id.Alive() {
			_ = os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

// ownerOf reads the process a run directory's name names.
func ownerOf(name string) (proc.ID, bool) {
	f := strings.Split(strings.TrimPrefix(name, runPrefix), "-")
	if !strings.HasPrefix(name, runPrefix) || len(f) != 3 {
		return proc.ID{}, false
	}
	pid, err1 := strconv.Atoi(f[0])
	st, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return proc.ID{}, false
	}
	return proc.ID{PID: pid, StartTime: st}, true
}

// freePort is a loopback TCP port no one listens on now. Another process
// may take it before the apiserver binds it: then the apiserver exits and
// Start fails with a StartError carrying its log.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("kubecp: a port for the apiserver: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
