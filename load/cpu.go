package load

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
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

// clockTicks is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture Go supports.
const clockTicks = 100

// machineBusy returns the CPU time this machine's CPUs have spent busy
// since boot, whoever used them (/proc/stat's first line: all but idle and
// iowait), and whether it could be read: for Run.MachineCPUCores.
func machineBusy() (time.Duration, bool) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, false
	}
	fields := strings.Fields(sc.Text())
	if len(fields) < 6 || fields[0] != "cpu" {
		return 0, false
	}
	var busy int64
	for i, v := range fields[1:] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, false
		}
		// user nice system idle iowait irq softirq steal guest guest_nice;
		// guest time is already in user and nice.
		if i == 3 || i == 4 || i >= 8 {
			continue
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / clockTicks, true
}

// CPUMeter measures, from its start, the CPU this process used (the load
// generator's) and the CPU the whole machine used. Use it from one
// goroutine.
type CPUMeter struct {
	start       time.Time
	self, busy  time.Duration
	machineRead bool
	procs       int
}

// StartCPU starts a CPUMeter now.
func StartCPU() CPUMeter {
	busy, ok := machineBusy()
	return CPUMeter{start: time.Now(), self: processCPU(), busy: busy, machineRead: ok, procs: runtime.GOMAXPROCS(0)}
}

// Procs is the cores this process's Go runtime could use when the meter
// started (GOMAXPROCS): at most what Cores' self can reach.
func (m CPUMeter) Procs() int { return m.procs }

// Cores returns the cores this process and the machine used since the
// meter started (0 for what could not be measured).
func (m CPUMeter) Cores() (self, machine float64) {
	secs := time.Since(m.start).Seconds()
	if secs <= 0 {
		return 0, 0
	}
	if d := processCPU() - m.self; d > 0 {
		self = d.Seconds() / secs
	}
	if busy, ok := machineBusy(); ok && m.machineRead && busy > m.busy {
		machine = (busy - m.busy).Seconds() / secs
	}
	return self, machine
}
