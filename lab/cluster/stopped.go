package cluster

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// waitStopped waits until every thread of process pid is stopped (state
// T or t in /proc/PID/task/*/stat), or until timeout, and reports whether
// they all were. kill(2) returns once SIGSTOP is queued; a thread running
// on another CPU (or on a vCPU the hypervisor has not scheduled) keeps
// running until it takes the signal, and a member can answer a request
// in that time. Pause waits, so that a member it paused answers nothing.
// Safe for concurrent use.
func waitStopped(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if allStopped(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// allStopped reports whether every thread of pid is stopped; false when
// its threads cannot be read.
func allStopped(pid int) bool {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "stat"))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			return false
		}
		// The state follows the command name, which is in parentheses
		// and may hold any character: take the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			return false
		}
		if s := b[i+2]; s != 'T' && s != 't' {
			return false
		}
	}
	return true
}
