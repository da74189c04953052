// Package cgroup creates, limits and removes the control groups the lab
// puts processes in: a member whose CPU is limited (the cpulimit fault),
// and the CPU budgets of members and load generators.
//
// A group limits CPU by a CFS quota (SetCPU, cores over a 100 ms
// period), pins to CPUs (SetCPUSet), limits memory (SetMemory) and says
// how often it was throttled (CPUStat). It speaks both cgroup v2 (the
// unified hierarchy: cpu.max, cpuset.cpus, memory.max, cgroup.procs) and
// cgroup v1 (one hierarchy per controller: cpu.cfs_quota_us and
// cpu.cfs_period_us, cpuset.cpus, memory.limit_in_bytes), and finds which
// one holds the cpu controller from /proc/self/mountinfo and
// /proc/PID/cgroup (Detect). Groups
// are made under the cgroup of the process they are opened for (Open), not
// at the root, and are named etcdlab-OWNERPID-NAME (GroupName), so that a
// group left by a process that was killed is recognisable and removed by
// the next one (Sweep).
//
// When cgroups cannot be written (no cpu controller, a read-only cgroup
// file system, not root) Open and the group operations return an
// *UnavailableError whose Reason a caller can print (or a test can skip
// with).
//
// Nothing in the package holds state between calls but the values it
// returns; a Hierarchy and a Group are plain values safe for concurrent
// use, though concurrent writes to one group's files race as the files do.
package cgroup
