package load

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time this process has used, user and system:
// the load generator's, for Run.LoadCPUCores. It includes whatever else the
// process does meanwhile (scraping the members, a local cluster's proxies),
// which is the load generator's cost too; the members are other processes.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
