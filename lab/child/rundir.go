package child

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// runPrefix starts every run directory's name: run-PID-STARTTIME-RANDOM,
// naming the process that made it.
const runPrefix = "run-"

// RunDir removes the run directories under base whose process is gone (a
// run killed before it could remove its own) and makes one for this
// process, base/run-PID-STARTTIME-RANDOM. The caller removes it when its
// run ends. Safe for concurrent use: a directory is removed only when the
// process its name names no longer runs.
func RunDir(base string) (string, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	SweepRunDirs(base)
	self, err := proc.Self()
	if err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	dir, err := os.MkdirTemp(base, fmt.Sprintf("%s%d-%d-", runPrefix, self.PID, self.StartTime))
	if err != nil {
		return "", fmt.Errorf("run directory: %w", err)
	}
	return dir, nil
}

// SweepRunDirs removes base's run directories of processes that are gone.
func SweepRunDirs(base string) {
	entries, _ := os.ReadDir(base)
	for _, e := range entries {
		id, ok := runDirOwner(e.Name())
		if ok && !id.Alive() {
			_ = os.RemoveAll(filepath.Join(base, e.Name()))
		}
	}
}

// runDirOwner reads the process a run directory's name names.
func runDirOwner(name string) (proc.ID, bool) {
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
