package cluster

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
)

// UpOptions is what running a cluster in the foreground (Up) adds to
// starting one: where it is recorded, where its progress goes, and what the
// caller does at each stage of its life.
type UpOptions struct {
	// StateFile records the running cluster (DefaultStateFile, say); it is
	// rewritten when a member is restarted and removed at the end.
	StateFile string
	// Stderr receives progress lines (a stale state file replaced,
	// members that exit, stopping, what was removed); nil discards them.
	// It is also Options.Log when that is nil.
	Stderr io.Writer
	// BeforeStart, if set, runs once the state file is known not to name a
	// running cluster and before anything starts: what fails there (the
	// CLI's metrics listener) leaves nothing behind.
	BeforeStart func() error
	// Started, if set, runs once the cluster is ready, before its control
	// socket and state file make it known (the CLI registers the
	// cluster's metrics). The func it returns, if any, runs when the
	// cluster begins to stop, or when Up fails after Started.
	Started func(*Cluster) (release func(), err error)
	// Ready, if set, runs once the state file names the cluster, with the
	// time its start took (the CLI prints the members there).
	Ready func(c *Cluster, st State, took time.Duration)
}

// RunningError is Up's refusal when the state file names a cluster whose
// controller still runs.
type RunningError struct {
	StateFile  string
	Controller proc.ID
}

func (e *RunningError) Error() string {
	return fmt.Sprintf("a cluster is already running (etcdlab pid %d, state file %s)", e.Controller.PID, e.StateFile)
}

// Up runs a cluster in the foreground until ctx ends, as `etcdlab cluster
// up` does: it refuses (*RunningError) when u.StateFile names a cluster
// that runs, starts one with o (its TLS client files beside the state
// file), serves its control socket, writes the state file, waits for ctx
// to end, then stops the cluster and removes the state file (if it still
// names this cluster) and the state file's directory and o.BaseDir when
// they are empty. A failed Start returns Start's error (a *BudgetError
// when this machine cannot give the members what o asks) with nothing
// left behind. Up's callbacks run on its goroutine.
func Up(ctx context.Context, o Options, u UpOptions) error {
	stderr := u.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if prev, err := ReadStateFile(u.StateFile); err == nil {
		if prev.Running() {
			return &RunningError{StateFile: u.StateFile, Controller: prev.Controller}
		}
		fmt.Fprintf(stderr, "replacing stale state file %s (etcdlab pid %d has exited)\n", u.StateFile, prev.Controller.PID)
	}
	if u.BeforeStart != nil {
		if err := u.BeforeStart(); err != nil {
			return err
		}
	}
	stateDir := filepath.Dir(u.StateFile)
	if o.Log == nil {
		o.Log = stderr
	}
	if o.TLS {
		dir, err := filepath.Abs(stateDir)
		if err != nil {
			return fmt.Errorf("state file %s: %w", u.StateFile, err)
		}
		o.ClientTLSDir = dir // absolute, so the state file works from anywhere
	}
	if o.OnExit == nil {
		o.OnExit = func(name string, err error) {
			fmt.Fprintf(stderr, "etcdlab: member %s exited (%v); the others keep running\n", name, err)
		}
	}
	began := time.Now()
	cl, err := Start(ctx, o)
	if err != nil {
		_ = os.Remove(stateDir) // only if empty: leave nothing behind
		return err
	}
	release := func() {}
	fail := func(err error) error {
		release()
		_ = cl.Stop()
		return err
	}
	if u.Started != nil { // before the state file says the cluster is up
		r, err := u.Started(cl)
		if r != nil {
			release = r
		}
		if err != nil {
			return fail(err)
		}
	}
	st := cl.State()
	if err := cl.ServeControl(ctx, func() { _ = WriteStateFile(u.StateFile, cl.State()) }); err != nil {
		return fail(err)
	}
	if err := WriteStateFile(u.StateFile, st); err != nil {
		return fail(err)
	}
	if u.Ready != nil {
		u.Ready(cl, st, time.Since(began))
	}

	<-ctx.Done()
	release()
	return stopUp(cl, st, o, u.StateFile, stderr)
}

// stopUp is the end of Up: stop the cluster, remove its state file and
// the directories it left empty, say what became of the data.
func stopUp(cl *Cluster, st State, o Options, stateFile string, stderr io.Writer) error {
	fmt.Fprintln(stderr, "stopping the cluster...")
	stopErr := cl.Stop()
	if cur, err := ReadStateFile(stateFile); err == nil && cur.Controller == st.Controller {
		_ = os.Remove(stateFile)
	}
	_ = os.Remove(filepath.Dir(stateFile)) // only if empty
	if o.BaseDir != "" {
		_ = os.Remove(o.BaseDir) // only if empty (a tmpfs directory made for the data)
	}
	if stopErr != nil {
		return stopErr
	}
	if kept := cl.KeptDataDir(); kept != "" {
		fmt.Fprintf(stderr, "stopped; data kept in %s\n", kept)
	} else {
		fmt.Fprintln(stderr, "stopped; removed", st.DataDir)
	}
	return nil
}
