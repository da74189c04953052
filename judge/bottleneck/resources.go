package bottleneck

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// cpuCtx is what the members' and the load generator's CPU is measured
// against.
type cpuCtx struct {
	// shared: etcdlab started the members on this machine, so they share
	// its cores with each other and with the load generator.
	shared bool
	// machine is this machine's cores (the load generator's); perMember
	// the cores of each member's own machine when they do not share this
	// one (0: not known).
	machine, perMember float64
	// budget is the smallest CPU budget of a member of a local cluster
	// run with budgets (0: none): a member cannot use more.
	budget float64
	// loadBudget is the load generator's CPU budget (0: none): it cannot
	// use more.
	loadBudget float64
}

func cpuContext(doc *result.Document, c *result.Cell, o Options) cpuCtx {
	env := c.Environment
	if env.CPUs == 0 {
		env = doc.Environment
	}
	per := o.CoresPerMember
	if per == 0 {
		per = c.Environment.MemberCores
	}
	budget := 0.0
	for _, b := range c.Environment.MemberCPUs {
		if b > 0 && (budget == 0 || b < budget) {
			budget = b
		}
	}
	load := c.Environment.LoadCPUs
	if load == 0 {
		load = doc.Environment.LoadCPUs
	}
	return cpuCtx{shared: env.LocalCluster, machine: float64(env.CPUs), perMember: per, budget: budget, loadBudget: load}
}

// cpuCandidates are the CPU limits that can be judged from what was
// measured.
func (j *judgement) cpuCandidates() []candidate {
	m, c := j.m, j.cpu
	var out []candidate
	if m.ServerRuns > 0 && c.budget > 0 {
		// The members' own limit: their cgroup's quota, not the machine.
		j.f[figMemberCPUBudget] = c.budget
		out = append(out, candidate{ResourceMemberCPU, m.MemberCPUMax / c.budget / judge.LimitCPUSaturated.Value(), j.sayMemberBudget})
	}
	if m.ServerRuns > 0 {
		switch {
		case c.shared && c.machine > 0:
			j.f[figCores] = c.machine
			out = append(out, candidate{ResourceMemberCPU, m.MemberCPUCores / c.machine / judge.LimitCPUSaturated.Value(), j.sayMemberCPU})
			if m.LoadCPURuns > 0 {
				res := ResourceMemberCPU
				if m.LoadCPUCores > m.MemberCPUCores {
					res = ResourceClientCPU
				}
				if other := m.MachineCPUCores - m.MemberCPUCores - m.LoadCPUCores; m.MachineCPURuns > 0 && other > max(m.MemberCPUCores, m.LoadCPUCores) {
					res = ResourceOtherCPU // the run did not cause its own limit
				}
				used := math.Max(m.MemberCPUCores+m.LoadCPUCores, m.MachineCPUCores)
				if m.MachineCPURuns > 0 {
					j.f[string(result.MetricMachineCPU)] = m.MachineCPUCores
				}
				out = append(out, candidate{res, used / c.machine / judge.LimitMachineSaturated.Value(), func() string { return j.sayMachine(res) }})
			}
		case !c.shared && c.perMember > 0:
			j.f[figCoresPerMember] = c.perMember
			out = append(out, candidate{ResourceMemberCPU, m.MemberCPUMax / c.perMember / judge.LimitCPUSaturated.Value(), j.sayMemberCPU})
		}
	}
	membersAtBudget := c.budget > 0 && m.ServerRuns > 0 && m.MemberCPUMax/c.budget >= judge.LimitCPUSaturated.Value()
	if m.LoadCPURuns > 0 && c.loadBudget > 0 && !membersAtBudget {
		// The load generator's own limit, its cgroup's quota, while the
		// members were not at theirs.
		j.f[figLoadCPUBudget] = c.loadBudget
		out = append(out, candidate{ResourceClientCPU, m.LoadCPUCores / c.loadBudget / judge.LimitCPUSaturated.Value(), j.sayLoadBudget})
	}
	if m.LoadCPURuns > 0 && c.machine > 0 {
		j.f[figCores] = c.machine
		avail := c.machine
		if l := float64(m.LoadCoresLimit); l > 0 && l < avail {
			avail = l // its Go runtime could use no more (bench --cpus)
			j.f[string(result.MetricLoadCores)] = l
		}
		out = append(out, candidate{ResourceClientCPU, m.LoadCPUCores / avail / judge.LimitCPUSaturated.Value(), j.sayClientCPU})
	}
	return out
}

func (j *judgement) sayMemberCPU() string {
	return "Member CPU limited throughput: " + j.at + " " + j.cpuClause() + "; " + j.walClause() + "."
}

func (j *judgement) sayMemberBudget() string {
	return fmt.Sprintf("The members' CPU budget limited throughput, not this machine: %s the busiest member used %.2f cores of its %s-core budget (a cgroup quota); %s.",
		j.at, j.m.MemberCPUMax, cores(j.cpu.budget), j.walClause())
}

func (j *judgement) sayLoadBudget() string {
	m := j.m
	s := fmt.Sprintf("The load generator's CPU budget limited throughput, not the cluster: %s it used %s of its %s-core budget (a cgroup quota)",
		j.at, cores2(m.LoadCPUCores), cores(j.cpu.loadBudget))
	if m.ServerRuns > 0 {
		s += fmt.Sprintf(", while %s used %s; %s", members(m.Members), cores(m.MemberCPUCores), j.walClause())
	}
	return s + "."
}

// cores2 renders cores with two decimals, to set against a budget.
func cores2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + " cores" }

func (j *judgement) sayMachine(res string) string {
	who := "the members"
	switch res {
	case ResourceClientCPU:
		who = "the load generator"
	case ResourceOtherCPU:
		who = "other processes than the run's (the figures are this machine's while it was busy with other work)"
	}
	m := j.m
	if other := m.MachineCPUCores - m.MemberCPUCores - m.LoadCPUCores; m.MachineCPURuns > 0 && other >= 0.1 {
		return fmt.Sprintf("The machine's CPU limited throughput, %s using most of it: %s %s used %s, the load generator %s and other processes %s of the %s cores they share; %s.",
			who, j.at, members(m.Members), cores(m.MemberCPUCores), cores(m.LoadCPUCores), cores(other), cores(j.cpu.machine), j.walClause())
	}
	return fmt.Sprintf("The machine's CPU limited throughput, %s using most of it: %s %s used %s and the load generator %s of the %s cores they share; %s.",
		who, j.at, members(m.Members), cores(m.MemberCPUCores), cores(m.LoadCPUCores), cores(j.cpu.machine), j.walClause())
}

func (j *judgement) sayClientCPU() string {
	m := j.m
	s := fmt.Sprintf("The load generator's CPU limited throughput: %s it used %s of this machine's %s cores", j.at, cores(m.LoadCPUCores), cores(j.cpu.machine))
	if l := float64(m.LoadCoresLimit); l > 0 && l < j.cpu.machine {
		unit := "cores"
		if l == 1 {
			unit = "core"
		}
		s = fmt.Sprintf("The load generator's CPU limited throughput: %s it used %s of the %s %s its Go runtime could use (--cpus; the machine has %s)",
			j.at, cores(m.LoadCPUCores), cores(l), unit, cores(j.cpu.machine))
	}
	if m.ServerRuns > 0 {
		s += fmt.Sprintf(", while %s used %s; %s", members(m.Members), cores(m.MemberCPUCores), j.walClause())
	}
	return s + "."
}

func (j *judgement) diskCandidate() (candidate, bool) {
	m := j.m
	if m.ServerRuns == 0 || m.WALFsyncP99 == 0 {
		return candidate{}, false
	}
	j.f[string(result.MetricWALFsyncsRate)], j.f[string(result.MetricWALFsyncP50)] = m.WALFsyncsPerSecond, m.WALFsyncP50
	score := m.WALBusy / judge.LimitWALBusy.Value()
	if m.WALBusyEstimated && m.WALFsyncP50 <= result.LowestDiskBucket*(1+1e-9) {
		score = 0 // an upper bound shows no saturation
	}
	if j.diskIOPS > 0 {
		j.f[figDiskJobIOPS], j.f[figDiskJobP99] = j.diskIOPS, j.diskP99
		score = math.Max(score, m.WALFsyncsPerSecond/(judge.LimitFsyncRateShare.Value()*j.diskIOPS))
	}
	return candidate{ResourceDisk, score, j.sayDisk}, true
}

func (j *judgement) sayDisk() string {
	m := j.m
	s := fmt.Sprintf("The disk limited throughput: %s the WAL fsynced %s times a second at p50 %s, %s",
		j.at, count(m.WALFsyncsPerSecond), fsyncSecs(m.WALFsyncP50), inFsync(m))
	if j.diskIOPS > 0 {
		s += fmt.Sprintf(", %s of the %s fdatasyncs a second the disk job measured", ratio(m.WALFsyncsPerSecond/j.diskIOPS), count(j.diskIOPS))
	}
	s += "; WAL fsync p99 " + fsyncSecs(m.WALFsyncP99)
	switch {
	case j.diskIOPS > 0 && j.diskP99 > 0:
		s += " (the disk job's p99: " + secs(j.diskP99) + ")"
	case m.WALFsyncP99 >= judge.LimitWALFsyncP99.Value():
		s += " (etcd asks for under " + judge.LimitWALFsyncP99.Text() + ")"
	}
	if c := j.cpuClause(); c != "" {
		s += "; " + c
	}
	return s + "."
}

func (j *judgement) networkCandidate() (candidate, bool) {
	if j.rtt.seconds <= 0 || j.m.P50.Mean <= 0 {
		return candidate{}, false
	}
	j.f[figRTT] = j.rtt.seconds
	if j.rtt.loopback { // evidence of the members' CPU, not a resource
		return candidate{}, false
	}
	return candidate{ResourceNetwork, j.rtt.seconds / j.m.P50.Mean / judge.LimitRTTShare.Value(), j.sayNetwork}, true
}

func (j *judgement) rttName() string {
	switch {
	case j.rtt.write:
		return "the emulated round trips a write waits for (to its member, on to the leader " + j.rtt.leader + ", its commit)"
	case j.rtt.leader != "":
		return "the emulated round trip a commit waits for (" + j.rtt.leader + " leading)"
	case j.rtt.emulated:
		return "the emulated round trip between members"
	case j.rtt.loopback:
		return "the members' peer round trip p99 (measured over loopback, no delay emulated: the time a member took to answer, not a network)"
	}
	return "the members' peer round trip p99 (measured)"
}

// rttSecs renders the round trip: a measured p99 in etcd's lowest bucket
// as "≤ 100.0 µs".
func (j *judgement) rttSecs() string {
	if j.rtt.emulated {
		return secs(j.rtt.seconds)
	}
	return units.Quantile(j.rtt.seconds, result.LowestPeerRTTBucket)
}

func (j *judgement) sayNetwork() string {
	m := j.m
	s := fmt.Sprintf("The round trip between members limited throughput: %s %s of %s is %s of the p50 latency of %s",
		j.at, j.rttName(), j.rttSecs(), ratio(j.rtt.seconds/m.P50.Mean), secs(m.P50.Mean))
	if c := j.context(); c != "" {
		s += "; " + c
	}
	return s + "."
}

// rttClause compares the round trip with the latency, for statements that
// name no resource.
func (j *judgement) rttClause() string {
	if j.rtt.seconds <= 0 || j.m.P50.Mean <= 0 {
		return ""
	}
	return fmt.Sprintf("%s %s against a p50 latency of %s", j.rttName(), j.rttSecs(), secs(j.m.P50.Mean))
}

// context is the CPU and WAL figures that go with every statement.
func (j *judgement) context() string {
	var parts []string
	if c := j.cpuClause(); c != "" {
		parts = append(parts, c)
	}
	if j.m.ServerRuns > 0 {
		parts = append(parts, j.walClause())
	}
	return strings.Join(parts, "; ")
}

// cpuClause says what CPU the members (and the load generator, when
// measured) used, against what was available when that is known.
func (j *judgement) cpuClause() string {
	m, c := j.m, j.cpu
	if m.ServerRuns == 0 {
		if m.LoadCPURuns > 0 {
			return fmt.Sprintf("the load generator used %s of this machine's %s cores", cores(m.LoadCPUCores), cores(c.machine))
		}
		return ""
	}
	var s string
	switch {
	case c.shared && c.machine > 0:
		s = fmt.Sprintf("%s used %s of the machine's %s cores", members(m.Members), cores(m.MemberCPUCores), cores(c.machine))
		if m.LoadCPURuns > 0 {
			s += fmt.Sprintf(" and the load generator %s more", cores(m.LoadCPUCores))
		}
		return s
	case !c.shared && c.perMember > 0:
		s = fmt.Sprintf("the busiest member used %s of its machine's %s cores (%s together %s)", cores(m.MemberCPUMax), cores(c.perMember), members(m.Members), cores(m.MemberCPUCores))
	default:
		s = fmt.Sprintf("%s used %s cores (their machines' cores are not known)", members(m.Members), cores(m.MemberCPUCores))
	}
	if m.LoadCPURuns > 0 {
		s += fmt.Sprintf(", the load generator %s of this machine's %s", cores(m.LoadCPUCores), cores(c.machine))
	}
	return s
}

// walClause is the WAL's fsync figures.
func (j *judgement) walClause() string {
	m := j.m
	if m.WALFsyncP99 == 0 {
		return "no WAL fsync observed"
	}
	s := fmt.Sprintf("WAL fsync p99 %s, %s", fsyncSecs(m.WALFsyncP99), inFsync(m))
	if m.WALFsyncP99Slowest > 2*m.WALFsyncP99 {
		s += fmt.Sprintf(" (slowest member's p99 %s)", fsyncSecs(m.WALFsyncP99Slowest))
	}
	return s
}

// members names the members: "the 3 members", "the member".
func members(n int) string {
	if n == 1 {
		return "the member"
	}
	if n == 0 {
		return "the members"
	}
	return fmt.Sprintf("the %d members", n)
}

// cores renders a number of cores: one decimal, two below 0.1, none for
// a whole machine's ("2").
func cores(v float64) string {
	if v >= 1 && v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if v < 0.1 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// count renders a count or rate with thousands separators: whole from 100
// (or when whole), one decimal below.
func count(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return humanize.Comma(int64(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// plural renders "1 client" or "10,000 clients".
func plural(n float64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return humanize.Comma(int64(math.Round(n))) + " " + many
}

// secs renders seconds: below one second as internal/units does, from one
// second with three significant digits ("1.23 s", "30 s", "120 s").
func secs(s float64) string {
	switch {
	case s < 1:
		return units.Seconds(s)
	case s < 100:
		return strconv.FormatFloat(s, 'g', 3, 64) + " s"
	}
	return strconv.FormatFloat(s, 'f', 0, 64) + " s"
}

// fsyncSecs renders a WAL fsync quantile from etcd's histogram: "≤ 1.00 ms"
// when it fell in the lowest bucket.
func fsyncSecs(s float64) string { return units.Quantile(s, result.LowestDiskBucket) }

func bytesIEC(v float64) string { return humanize.IBytes(uint64(v)) }

// inFsync says what share of the run the WAL spent in fsync (an estimate:
// result.Measures.WALBusy).
func inFsync(m result.Measures) string {
	busy := m.WALBusy
	switch {
	case m.WALBusyEstimated && m.WALFsyncP50 <= result.LowestDiskBucket*(1+1e-9):
		return "in fsync at most " + ratio(busy) + " of the run (fsyncs × a p50 of at most 1 ms)"
	case m.WALBusyEstimated:
		return "in fsync about " + ratio(busy) + " of the run (fsyncs × p50)"
	case busy > 0 && busy < 0.005:
		return "in fsync under 1% of the run"
	}
	return "in fsync about " + ratio(busy) + " of the run"
}
