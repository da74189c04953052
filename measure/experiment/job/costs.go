package job

import "time"

// CostID names one fixed cost of the experiment estimate's model.
type CostID int

// The estimate's fixed costs; Costs() has each one's figure and where it
// was measured.
const (
	CostClusterStart    CostID = iota // a fresh 3-member cluster's start to healthy, plus its teardown
	CostSlowDisk                      // more for a slow disk (FUSE mounts) per cluster
	CostEmulatedNet                   // more for an emulated network (namespace, delay lines) per cluster
	CostExternalEtcd                  // more for members from an etcd binary (its teardown) per cluster
	CostTLS                           // more for TLS (a throw-away CA, certificates) per cluster
	CostMemberBudgets                 // more for member CPU budgets (cgroups) per cluster
	CostEtcdBuild                     // building an etcd version the cache does not hold
	CostBenchRun                      // a bench run's own time besides its requests (scrapes, observers, clean-up)
	CostLeaderPlacement               // handing the leadership to the setup's member before a run
	CostLoadAgent                     // a bench line in a load budget: its child agent and cgroup
	CostDiskChild                     // the disk job's child etcdlab on a slow disk
	CostMemberPutCore                 // puts per second one core of a leader's CPU budget carries (a rate, not a time: D is one put's CPU)
)

// Cost is one row of the estimate's table: what it is, how long it
// takes, and the measurement it comes from.
type Cost struct {
	ID     CostID
	What   string
	D      time.Duration
	Source string
}

// Costs is the estimate's table of fixed costs, one row per CostID. The
// figures were measured on this project's 2-core machine, shared with
// other work; perf/estimate-costs.sh measures them again.
func Costs() []Cost {
	const costsScript = "perf/estimate-costs.sh 3, 2026-11-28, load average 10"
	return []Cost{
		{CostClusterStart, "a fresh 3-member cluster: start to healthy with a leader, plus teardown", 2200 * time.Millisecond,
			"docs/benchmarks.md, experiments' per-cell overhead (perf/experiment-overhead.sh 7, 516dee6): median 2.20 s; " + costsScript + ": start 1.1 to 2.8 s, teardown 0.1 to 0.3 s on this disk, tmpfs, TLS, budgets, leader handed over"},
		{CostSlowDisk, "a slow disk's FUSE mounts (slowfs), more per cluster", 2 * time.Second,
			costsScript + ": teardown 1.26 s with --fsync-delay 1ms against 0.20 s; the hdd preset's start 3.8 s against 2.6 s"},
		{CostEmulatedNet, "an emulated network (labnet namespace, delay lines), more per cluster", 0,
			costsScript + ": start 1.7 s with --rtt 20ms, within the spread of the others"},
		{CostExternalEtcd, "members from an etcd binary (--etcd VERSION): their teardown, more per cluster", 10 * time.Second,
			costsScript + ": teardown 10.1 s with --etcd 3.5.35 (every round) against 0.1 to 0.3 s embedded"},
		{CostTLS, "TLS: a throw-away CA and certificates, more per cluster", 0,
			costsScript + ": start 2.6 s with --tls, within the spread of the others (1.1 to 2.8 s)"},
		{CostMemberBudgets, "member CPU budgets: a cgroup per member, more per cluster", 0,
			costsScript + ": start 1.1 s with --member-cpus 0.2, within the spread; what a budget costs is the throughput it allows (CostMemberPutCore)"},
		{CostEtcdBuild, "building an etcd version the cache does not hold, once per version", 230 * time.Second,
			"docs/benchmarks.md, etcd versions: perf/etcd-build.sh, cold caches 157 s (3.7.3) and 227 s (3.5.35); warm Go caches 7 to 12 s"},
		{CostBenchRun, "a bench run's own time besides its requests (iteration or warm-up: scrapes, observers, key clean-up)", 500 * time.Millisecond,
			costsScript + ": 0.04 s an iteration for 1 request; 0.5 s counts the members' scrape at each run's start and end (1 s series) and deleting the run's keys"},
		{CostLeaderPlacement, "handing the leadership to the setup's member before a run", 200 * time.Millisecond,
			costsScript + ": --leader m2 start 2.8 s against 2.6 s; a move is one election round trip and a check"},
		{CostLoadAgent, "a bench line in a load budget: its child agent and cgroup, once per line", time.Second,
			costsScript + ": bench with --load-cpus 0.8 within the 1.1 to 2.4 s spread of bench without it; 1 s is the spread's bound"},
		{CostDiskChild, "the disk job's child etcdlab on a slow disk (process start, test file laid out through FUSE)", time.Second,
			"TestExperimentDiskJobMeasuresEmulatedDisk here: 3 setups of 8 s jobs in 32 s, 2 with 3-member clusters on FUSE"},
		{CostMemberPutCore, "one put's CPU on a leader in a CPU budget (a rate: 1/D puts per second per core)", time.Second / 11000,
			"perf/estimates.sh quick (75a86e9, 2026-11-28, quiet): leader-vs-all --quick, to the leader on etcd 3.5.35 1,013 req/s at 0.1 cores, 2,181 at 0.2, 5,367 at 0.4, on 3.7.3 2,243 at 0.2 (10,100 to 13,400 a core); to every member 2.0x, 2.4x, 1.8x and 2.0x. (3dd18ce's 5,260 to 5,700 a core was 3.6.16)"},
	}
}

// D is the cost's figure in Costs (every CostID has a row: TestCosts).
func (id CostID) D() time.Duration {
	for _, c := range Costs() {
		if c.ID == id {
			return c.D
		}
	}
	return 0
}

// SpreadGain is how much more a CPU-budgeted cluster carries when the
// clients spread their puts over every member instead of the leader
// (the same run as CostMemberPutCore: 1.8x to 2.4x).
const SpreadGain = 2.0
