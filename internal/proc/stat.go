package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ClockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's CPU and
// start times (100 on every architecture Linux runs Go on).
const ClockTicks = 100

// ErrMalformedStat is returned (wrapped) for a /proc/PID/stat that does not
// read as proc(5) describes it.
var ErrMalformedStat = errors.New("malformed /proc stat")

// Stat is what etcdlab reads of one /proc/PID/stat (or
// /proc/PID/task/TID/stat) line: the one parser of that file in the module.
type Stat struct {
	State     byte   // R, S, D, T (stopped), t (traced), Z (zombie), X, ...
	PPID      int    // the parent's PID
	UTime     uint64 // user CPU time, clock ticks
	STime     uint64 // system CPU time, clock ticks
	Threads   int    // number of threads
	StartTime uint64 // clock ticks after boot the process started
}

// CPUSeconds is the process's user plus system CPU time in seconds.
func (s Stat) CPUSeconds() float64 { return float64(s.UTime+s.STime) / ClockTicks }

// Stopped reports whether the state is stopped (SIGSTOP) or traced.
func (s Stat) Stopped() bool { return s.State == 'T' || s.State == 't' }

// ReadStat reads /proc/PID/stat.
func ReadStat(pid int) (Stat, error) {
	return readStat(fmt.Sprintf("/proc/%d/stat", pid))
}

func readStat(path string) (Stat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Stat{}, err // *fs.PathError, naming the file
	}
	s, err := ParseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseStat parses one /proc/PID/stat line. The command name, in
// parentheses, may hold any character (spaces, parentheses): the fields
// start after the last ')'.
func ParseStat(b []byte) (Stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Stat{}, ErrMalformedStat
	}
	// fields[0] is the state (field 3 of proc(5)), fields[19] the start
	// time (field 22).
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, ErrMalformedStat
	}
	var s Stat
	var errs [5]error
	s.State = f[0][0]
	s.PPID, errs[0] = strconv.Atoi(f[1])
	s.UTime, errs[1] = strconv.ParseUint(f[11], 10, 64)
	s.STime, errs[2] = strconv.ParseUint(f[12], 10, 64)
	s.Threads, errs[3] = strconv.Atoi(f[17])
	s.StartTime, errs[4] = strconv.ParseUint(f[19], 10, 64)
	if err := errors.Join(errs[:]...); err != nil {
		return Stat{}, fmt.Errorf("%w: %w", ErrMalformedStat, err)
	}
	return s, nil
}

// AllThreadsStopped reports whether every thread of process pid is stopped
// (/proc/PID/task/*/stat); false when its threads cannot be read.
func AllThreadsStopped(pid int) bool {
	tasks, err := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "stat"))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, t := range tasks {
		s, err := readStat(t)
		if err != nil || !s.Stopped() {
			return false
		}
	}
	return true
}

// WaitStopped waits until every thread of process pid is stopped, or until
// timeout, and reports whether they all were. kill(2) returns once SIGSTOP
// is queued; a thread running on another CPU (or on a vCPU the hypervisor
// has not scheduled) keeps running until it takes the signal, and a
// member can answer a request in that time: a pause waits, so that what
// it paused answers nothing. Safe for concurrent use.
func WaitStopped(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if AllThreadsStopped(pid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
}
