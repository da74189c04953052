// Package proc identifies processes across restarts of etcdlab so that a PID
// recorded in a state file is never confused with an unrelated process that
// reused it. It reads Linux's /proc.
package proc

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// ID names one process instance: a PID and the kernel's start time for it
// (clock ticks since boot). Two processes never share both.
type ID struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
}

// Self returns the ID of the calling process.
func Self() (ID, error) { return Of(os.Getpid()) }

// Of returns the ID of the running process pid.
func Of(pid int) (ID, error) {
	st, err := startTime(pid)
	if err != nil {
		return ID{}, err
	}
	return ID{PID: pid, StartTime: st}, nil
}

// Alive reports whether the process named by id is still running. A zombie
// counts as gone once its last thread has exited; one whose main thread
// exited while another is stuck (in an uninterruptible wait, say) still
// holds its files and ports, so it counts as running.
func (id ID) Alive() bool {
	if id.PID <= 0 {
		return false
	}
	st, err := ReadStat(id.PID)
	if err != nil {
		return false
	}
	if (st.State == 'Z' || st.State == 'X') && st.Threads <= 1 {
		return false
	}
	return id.StartTime == 0 || st.StartTime == id.StartTime
}

// Stopped reports whether the process named by id is stopped (SIGSTOP,
// or a tracer's stop): alive, but running nothing until SIGCONT.
func (id ID) Stopped() bool {
	if id.PID <= 0 {
		return false
	}
	st, err := ReadStat(id.PID)
	return err == nil && (id.StartTime == 0 || st.StartTime == id.StartTime) && st.Stopped()
}

// Signal sends sig to the process if it is still the same instance.
func (id ID) Signal(sig syscall.Signal) error {
	if !id.Alive() {
		return fmt.Errorf("process %d has exited", id.PID)
	}
	return syscall.Kill(id.PID, sig)
}

// WaitGone polls until the process has exited or timeout passes, and reports
// whether it exited.
func (id ID) WaitGone(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for id.Alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func startTime(pid int) (uint64, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	return st.StartTime, nil
}
