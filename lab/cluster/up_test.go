package cluster

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestUp runs a cluster in the foreground: the stages run in order, the
// state file names the cluster while it runs, a second Up on the same
// state file is refused, and the end removes the state file, its
// directory and the data.
func TestUp(t *testing.T) {
	base := filepath.Join(t.TempDir(), "lab")
	stateFile := filepath.Join(base, "cluster.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stages []string
	var stderr strings.Builder
	ready := make(chan State, 1)
	done := make(chan error, 1)
	go func() {
		done <- Up(ctx, Options{Members: 1, BaseDir: base, Tuning: tuning(100, 1000)}, UpOptions{
			StateFile:   stateFile,
			Stderr:      &stderr,
			BeforeStart: func() error { stages = append(stages, "before"); return nil },
			Started: func(*Cluster) (func(), error) {
				stages = append(stages, "started")
				return func() { stages = append(stages, "release") }, nil
			},
			Ready: func(_ *Cluster, st State, took time.Duration) {
				stages = append(stages, "ready")
				ready <- st
			},
		})
	}()
	var st State
	select {
	case st = <-ready:
	case err := <-done:
		t.Fatalf("Up ended before ready: %v\n%s", err, stderr.String())
	}
	onDisk, err := ReadStateFile(stateFile)
	if err != nil || onDisk.Controller != st.Controller || !onDisk.Running() {
		t.Fatalf("state file: %+v, %v", onDisk, err)
	}
	err = Up(context.Background(), Options{Members: 1, BaseDir: base}, UpOptions{StateFile: stateFile})
	var re *RunningError
	if !errors.As(err, &re) || re.Controller != st.Controller {
		t.Errorf("a second Up: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Up: %v", err)
	}
	if got := strings.Join(stages, " "); got != "before started ready release" {
		t.Errorf("stages %q", got)
	}
	if _, err := os.Stat(base); !os.IsNotExist(err) {
		t.Errorf("left %s: %v", base, err)
	}
	if !strings.Contains(stderr.String(), "stopping the cluster...\nstopped; removed "+st.DataDir) {
		t.Errorf("stderr %q", stderr.String())
	}
}
