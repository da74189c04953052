package cluster

import (
	"context"
	"maps"
	"testing"
	"time"
)

// TestCounts injects faults through a cluster's methods, one after the
// other, and checks what it counted after each: starts, exits, faults;
// a fault that fails (pausing a dead member) is not counted.
func TestCounts(t *testing.T) {
	t.Parallel()
	c, err := Start(context.Background(), Options{Members: 1, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	m := c.Names()[0]
	for _, step := range []struct {
		name          string
		do            func() error
		fails         bool
		starts, exits int64
		faults        map[string]int64
	}{
		{"started", func() error { return nil }, false, 1, 0, map[string]int64{}},
		{"pause", func() error { return c.Pause(m) }, false, 1, 0, map[string]int64{FaultPause: 1}},
		{"resume", func() error { return c.Resume(m) }, false, 1, 0, map[string]int64{FaultPause: 1, FaultResume: 1}},
		{"kill", func() error { return c.Kill(m) }, false, 1, 1, map[string]int64{FaultPause: 1, FaultResume: 1, FaultKill: 1}},
		{"pause a dead member", func() error { return c.Pause(m) }, true, 1, 1, map[string]int64{FaultPause: 1, FaultResume: 1, FaultKill: 1}},
		{"restart", func() error { return c.Restart(m) }, false, 2, 1, map[string]int64{FaultPause: 1, FaultResume: 1, FaultKill: 1, FaultRestart: 1}},
	} {
		if err := step.do(); (err != nil) != step.fails {
			t.Fatalf("%s: error %v, want failure %v", step.name, err, step.fails)
		}
		// An exit is counted when the process is reaped, just after Kill
		// returns.
		var got Counts
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			got = c.Counts()
			if got.Exits[m] == step.exits || time.Now().After(deadline) {
				break
			}
		}
		if got.Starts[m] != step.starts || got.Exits[m] != step.exits || !maps.Equal(got.Faults, step.faults) {
			t.Errorf("after %s: starts %d exits %d faults %v; want %d %d %v", step.name, got.Starts[m], got.Exits[m], got.Faults, step.starts, step.exits, step.faults)
		}
	}
}
