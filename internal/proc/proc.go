// Package proc identifies processes across restarts of etcdlab so that a PID
// recorded in a state file is never confused with an unrelated process that
// reused it. It reads Linux's /proc.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
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
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", id.PID))
	if err != nil {
		return false
	}
	fields, err := statFields(b)
	if err != nil {
		return false
	}
	if fields[0] == "Z" || fields[0] == "X" {
		if threads, err := strconv.Atoi(fields[17]); err != nil || threads <= 1 {
			return false
		}
	}
	st, err := strconv.ParseUint(fields[19], 10, 64)
	return err == nil && (id.StartTime == 0 || st == id.StartTime)
}

// Stopped reports whether the process named by id is stopped (SIGSTOP,
// or a tracer's stop): alive, but running nothing until SIGCONT.
func (id ID) Stopped() bool {
	if id.PID <= 0 {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", id.PID))
	if err != nil {
		return false
	}
	fields, err := statFields(b)
	if err != nil {
		return false
	}
	st, err := strconv.ParseUint(fields[19], 10, 64)
	return err == nil && (id.StartTime == 0 || st == id.StartTime) && (fields[0] == "T" || fields[0] == "t")
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
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	fields, err := statFields(b)
	if err != nil {
		return 0, fmt.Errorf("process %d: %w", pid, err)
	}
	return strconv.ParseUint(fields[19], 10, 64)
}

// statFields returns the fields of /proc/PID/stat after the command name, so
// that fields[0] is the state and fields[19] the start time.
func statFields(b []byte) ([]string, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc stat")
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return nil, fmt.Errorf("malformed /proc stat")
	}
	return fields, nil
}
