package kubecp

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's CPU times
// (100 on every architecture Linux runs Go on).
const clockTicks = 100

// CPUSeconds is the CPU time the control plane's processes (apiservers,
// controller manager, scheduler, hollow nodes) have used so far, user and
// system, from /proc; a process that has exited counts no more. Safe for
// concurrent use.
func (cp *ControlPlane) CPUSeconds() (float64, error) {
	var total float64
	for _, p := range cp.processes() {
		if p.exited() {
			continue
		}
		t, err := processCPUSeconds(p.cmd.Process.Pid)
		if err != nil {
			return 0, err
		}
		total += t
	}
	return total, nil
}

// processCPUSeconds reads a process's utime + stime.
func processCPUSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("kubecp: %w", err)
	}
	s := string(b)
	// Fields after the command, which may hold spaces: state is field 3,
	// utime 14 and stime 15 (proc(5)).
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("kubecp: /proc/%d/stat: %d fields", pid, len(f))
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("kubecp: /proc/%d/stat: utime %q, stime %q", pid, f[11], f[12])
	}
	return float64(u+st) / clockTicks, nil
}
