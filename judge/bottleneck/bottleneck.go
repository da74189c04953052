package bottleneck

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/etcdlab/etcdlab/result"
)

// Resources a bottleneck statement names (result.Bottleneck.Resource).
const (
	ResourceMemberCPU = "member-cpu" // the members' CPU against the cores available to them
	ResourceClientCPU = "client-cpu" // the load generator's CPU
	ResourceOtherCPU  = "other-cpu"  // processes outside the run took most of the machine's CPU
	ResourceDisk      = "disk"       // WAL fsync time against the run, or the disk's measured fsync rate
	ResourceNetwork   = "network"    // the round trip between members dominates latency
	ResourceQuota     = "quota"      // requests refused: database space exceeded
	ResourceFault     = "fault"      // the cluster was unavailable for part of the run
	ResourceOverload  = "overload"   // no fault, yet no request to any member completed in time for part of the run
	ResourceNone      = "none"       // the load was below capacity
	ResourceUnknown   = "unknown"    // not enough was measured to tell; the statement says what is missing
	// ResourceMixed is for a whole sweep only: its setups were limited by
	// different resources (the statement lists them).
	ResourceMixed = "mixed"
)

// The rules' limits are rows of judge's limits table
// (judge.LimitCPUSaturated, and the others from
// judge.LimitMachineSaturated to judge.LimitRateLimitShare). A resource is
// named only when its figure reaches its limit; when several do, the one
// furthest past its limit is named and the others' figures stay in the
// statement.

// Options are what a bottleneck statement needs that a result does not
// hold. The zero value is usable.
type Options struct {
	// CoresPerMember is the cores of each member's machine when etcdlab did
	// not start the members (Environment.LocalCluster false); 0: the
	// cell's Environment.MemberCores, and when that is 0 too the members'
	// CPU is reported but not judged.
	CoresPerMember float64 `json:"cores_per_member,omitempty"`
	// RTTSeconds is the round trip emulated between members, by setup
	// (from its topology). A setup not in it takes its cells' "rtt" param
	// when that is a duration ("20ms"); failing both, the members'
	// measured peer round trip p99 is used, and the statement says so.
	RTTSeconds map[string]float64 `json:"rtt_seconds,omitempty"`
}

// Fill fills in the statement of every cell of doc's experiment
// that has none, and of the whole sweep when it has none. Statements
// already there are kept. doc must not be read or written concurrently.
func Fill(doc *result.Document, o Options) {
	exp := doc.Experiment
	if exp == nil {
		return
	}
	for i := range exp.Cells {
		if exp.Cells[i].Bottleneck == nil {
			exp.Cells[i].Bottleneck = Cell(doc, i, o)
		}
	}
	if exp.Bottleneck == nil {
		exp.Bottleneck = Sweep(doc, o)
	}
	if exp.Knees == nil {
		exp.Knees = Knees(exp)
	}
}

// Cell says which resource limited the throughput of cell i of
// doc's experiment, with the figures that show it. The rest of the
// experiment is its context: a disk job measured in the same setup is the
// disk's capability, and cells of the same setup and workload at higher
// loads show whether this one's load was below capacity. nil for a cell
// that sent no requests to limit (a disk job), and for a size cell (its
// answer states each probe's bottleneck).
func Cell(doc *result.Document, i int, o Options) *result.Bottleneck {
	exp := doc.Experiment
	c := &exp.Cells[i]
	if c.Doctor != nil || c.Incident != nil || c.Size != nil || c.Maintenance != nil || c.Status == result.CellSkipped {
		return nil // an incident diagnosed, a size search, or nothing run: no load of the cell's to limit
	}
	switch c.Status {
	case result.CellFailed:
		return unknown("the cell failed: " + strings.TrimSpace(c.Error))
	case result.CellPending:
		return unknown("the cell has not run yet")
	}
	m := result.MeasureCell(c)
	if m.Runs == 0 {
		if c.Disk != nil {
			return nil
		}
		return unknown("the cell has no measured run")
	}
	j := judgement{m: m, at: loadPhrase(m), cpu: cpuContext(doc, c, o), rtt: rttOf(c, m, o)}
	if pods := kubePods(c); pods > 0 {
		j.at = "in the Kubernetes run of " + plural(float64(pods), "pod", "pods") // its "clients" are the control plane's components
	}
	if d := setupDisk(exp, c.Setup); d != nil {
		j.diskIOPS, j.diskP99 = d.IOPS, d.SyncLatency.At(99)
	}
	j.f = baseFigures(m)
	if b := j.quota(); b != nil {
		return b
	}
	if b := j.fault(c.Faults); b != nil {
		return b
	}
	if b := j.kubeLimit(c); b != nil {
		return j.withFaults(b, c.Faults)
	}
	if b := j.followedRate(); b != nil {
		return b
	}
	if b := j.saturated(); b != nil {
		return j.withFaults(b, c.Faults)
	}
	if b := j.belowCapacity(exp, i); b != nil {
		return j.withFaults(b, c.Faults)
	}
	return j.withFaults(j.unknownWhy(c), c.Faults)
}

// judgement is one cell's figures on their way to a statement.
type judgement struct {
	m                 result.Measures
	at                string // "at 1,000 clients"
	cpu               cpuCtx
	rtt               rttCtx
	diskIOPS, diskP99 float64 // the disk job's, 0 when none was measured in the setup
	f                 map[string]float64
}

func unknown(why string) *result.Bottleneck {
	return &result.Bottleneck{Resource: ResourceUnknown, Statement: "Unknown: " + why + "."}
}

func (j *judgement) done(resource, statement string) *result.Bottleneck {
	return &result.Bottleneck{Resource: resource, Statement: statement, Figures: j.f}
}

func (j *judgement) quota() *result.Bottleneck {
	m := j.m
	if m.QuotaErrors == 0 {
		return nil
	}
	j.f[string(result.MetricQuotaErrors)] = float64(m.QuotaErrors)
	s := fmt.Sprintf("The backend quota limited throughput: %s requests %s were refused with \"database space exceeded\"", count(float64(m.QuotaErrors)), j.at)
	if m.DBSizeBytes > 0 {
		j.f[string(result.MetricDBSize)] = m.DBSizeBytes
		s += fmt.Sprintf("; the database reached %s", bytesIEC(m.DBSizeBytes))
	}
	return j.done(ResourceQuota, s+".")
}

// unavailable is the seconds the cluster could not serve: canaries'
// windows, or a majority of members without a leader, or (when faults
// were injected) the clients' own windows.
func (j *judgement) unavailable(faults []result.FaultEvent) (float64, string) {
	m := j.m
	secs, how := m.ClusterUnavailableSeconds, "canaries to every member failed"
	if m.SecondsWithoutLeader > secs {
		secs, how = m.SecondsWithoutLeader, "a majority of members had no leader"
	}
	if len(faults) > 0 && m.ClientUnavailableSeconds > secs {
		secs, how = m.ClientUnavailableSeconds, "no request of the load succeeded"
	}
	return secs, how
}

func (j *judgement) fault(faults []result.FaultEvent) *result.Bottleneck {
	m := j.m
	down, how := j.unavailable(faults)
	if down <= 0 || m.RunSeconds <= 0 || down/m.RunSeconds < judge.LimitFaultShare.Value() {
		return nil
	}
	j.f[figUnavailable], j.f[string(result.MetricRunSeconds)] = down, m.RunSeconds
	if len(faults) == 0 && m.LeaderChanges == 0 && m.SecondsWithoutLeader < down {
		return j.overload(down)
	}
	s := fmt.Sprintf("A fault limited throughput: %s the cluster was unavailable for %s of the %s measured (%s)", j.at, secs(down), secs(m.RunSeconds), how)
	if ev := faultList(faults); ev != "" {
		s += " after " + ev
	}
	var more []string
	if m.LeaderChanges > 0 {
		more = append(more, plural(m.LeaderChanges, "leader change", "leader changes"))
	}
	if m.Errors > 0 {
		more = append(more, plural(float64(m.Errors), "failed request", "failed requests"))
	}
	if len(more) > 0 {
		s += "; " + strings.Join(more, ", ")
	}
	return j.done(ResourceFault, s+".")
}

// overload is the statement for a cluster that kept its leader and had no
// fault injected, yet served nobody in time for part of the run: the
// load itself swamped it (canaries carry the run's request timeout).
func (j *judgement) overload(down float64) *result.Bottleneck {
	m := j.m
	s := fmt.Sprintf("The load overwhelmed the cluster: %s no request to any member, canaries included, completed within the request timeout for %s of the %s measured, with no fault injected and no leader change",
		j.at, secs(down), secs(m.RunSeconds))
	if m.Errors > 0 {
		s += "; " + plural(float64(m.Errors), "failed request", "failed requests")
	}
	if c := j.cpuClause(); c != "" {
		s += "; " + c
	}
	return j.done(ResourceOverload, s+".")
}

// withFaults adds what injected faults did when they did not limit
// throughput.
func (j *judgement) withFaults(b *result.Bottleneck, faults []result.FaultEvent) *result.Bottleneck {
	if len(faults) == 0 {
		return b
	}
	down, _ := j.unavailable(faults)
	ev := faultList(faults)
	if down > 0 {
		b.Statement += fmt.Sprintf(" The faults (%s) left the cluster unavailable for %s.", ev, secs(down))
	} else {
		b.Statement += fmt.Sprintf(" The faults (%s) left the cluster available throughout.", ev)
	}
	return b
}

func (j *judgement) followedRate() *result.Bottleneck {
	m := j.m
	if m.Rate <= 0 || m.Throughput.Mean < judge.LimitRateFollowed.Value()*m.Rate {
		return nil
	}
	j.f[figOfferedRate] = m.Rate
	s := fmt.Sprintf("Nothing limited throughput: the load was below capacity: %s req/s offered, %s achieved", count(m.Rate), count(m.Throughput.Mean))
	if c := j.context(); c != "" {
		s += "; " + c
	}
	return j.done(ResourceNone, s+".")
}

// candidate is a resource and how far past its limit it is (1 = at it).
type candidate struct {
	resource string
	score    float64
	say      func() string
}

// saturated names the resource furthest past its limit, if any is.
func (j *judgement) saturated() *result.Bottleneck {
	var cs []candidate
	cs = append(cs, j.cpuCandidates()...)
	if c, ok := j.diskCandidate(); ok {
		cs = append(cs, c)
	}
	if c, ok := j.networkCandidate(); ok {
		cs = append(cs, c)
	}
	var best *candidate
	for i := range cs {
		if cs[i].score >= 1 && (best == nil || cs[i].score > best.score) {
			best = &cs[i]
		}
	}
	if best == nil {
		return nil
	}
	return j.done(best.resource, best.say())
}

func (j *judgement) belowCapacity(exp *result.Experiment, i int) *result.Bottleneck {
	m := j.m
	best, bestLoad := 0.0, ""
	for k := range exp.Cells {
		o := &exp.Cells[k]
		if k == i || o.Status != result.CellOK || !samePoint(&exp.Cells[i], o) {
			continue
		}
		om := result.MeasureCell(o)
		if !higherLoad(om, m) || om.Throughput.Mean < judge.LimitMoreAtHigherLoad.Value()*m.Throughput.Mean {
			continue
		}
		if om.Throughput.Mean > best {
			best, bestLoad = om.Throughput.Mean, strings.TrimPrefix(loadPhrase(om), "at ")
		}
	}
	if best == 0 {
		return nil
	}
	j.f[figHigherLoadThroughput] = best
	s := fmt.Sprintf("Nothing limited throughput: the load was below capacity: %s %s req/s, while %s reached %s req/s in the same setup",
		j.at, count(m.Throughput.Mean), bestLoad, count(best))
	if c := j.context(); c != "" {
		s += "; " + c
	}
	return j.done(ResourceNone, s+".")
}

func (j *judgement) unknownWhy(c *result.Cell) *result.Bottleneck {
	m := j.m
	if m.ServerRuns == 0 {
		if b := j.checkScraped(c); b != nil {
			return b
		}
		return j.done(ResourceUnknown, fmt.Sprintf("Unknown: the members' metrics were not scraped, so their CPU, disk and round trip are not known; %s %s req/s, p50 %s.",
			j.at, count(m.Throughput.Mean), secs(m.P50.Mean)))
	}
	s := fmt.Sprintf("Unknown: no measured resource was saturated %s (%s req/s): %s", j.at, count(m.Throughput.Mean), j.context())
	if r := j.rttClause(); r != "" {
		s += "; " + r
	}
	if j.cpu.shared && m.LoadCPURuns == 0 {
		s += "; the load generator shares the machine and its CPU was not measured"
	}
	return j.done(ResourceUnknown, s+".")
}

// samePoint reports whether two cells differ only in their load (clients,
// conns, rate): same setup, workload and other params.
func samePoint(a, b *result.Cell) bool {
	if a.Setup != b.Setup || a.Workload != b.Workload {
		return false
	}
	load := map[string]bool{"clients": true, "conns": true, "rate": true}
	for k, v := range a.Params {
		if !load[k] && b.Params[k] != v {
			return false
		}
	}
	for k := range b.Params {
		if _, ok := a.Params[k]; !ok && !load[k] {
			return false
		}
	}
	return true
}

// higherLoad reports whether a offered more load than b: more clients in a
// closed loop, a higher rate in an open one.
func higherLoad(a, b result.Measures) bool {
	if a.Rate > 0 || b.Rate > 0 {
		return a.Rate > b.Rate
	}
	return a.Clients > b.Clients
}

// loadPhrase says at what load a cell ran.
func loadPhrase(m result.Measures) string {
	if m.Rate > 0 {
		return "at " + count(m.Rate) + " req/s offered"
	}
	return "at " + plural(float64(m.Clients), "client", "clients")
}

// setupDisk is the fsync job of a disk cell in the setup, if any.
func setupDisk(exp *result.Experiment, setup string) *result.DiskJob {
	for i := range exp.Cells {
		c := &exp.Cells[i]
		if c.Setup != setup || c.Disk == nil || c.Status != result.CellOK {
			continue
		}
		for k := range c.Disk.Jobs {
			if j := &c.Disk.Jobs[k]; j.SyncLatency != nil && j.IOPS > 0 {
				return j
			}
		}
	}
	return nil
}

// rttCtx is the round trip between members and where it came from:
// emulated (leader names the member whose commit round trip it is, "" when
// it is not one leader's) or the members' measured peer round trip.
type rttCtx struct {
	seconds  float64
	emulated bool
	leader   string
	// write: seconds is a write's whole path (client, endpoint, leader,
	// commit), not the commit's round trip alone.
	write bool
	// loopback: seconds was measured between members etcdlab started on
	// this machine with no delay emulated between them, so no network
	// could have added it: it is how long a member took to answer its
	// peer (scheduling, a CPU quota's throttling), never the limit.
	loopback bool
}

// rttOf is the round trip a cell's commits waited for: the options' for
// its setup, else the emulated one recorded for the leader at the end of
// its last run (the median over members when no leader was seen), else its
// "rtt" param, else the members' measured peer round trip p99.
func rttOf(c *result.Cell, m result.Measures, o Options) rttCtx {
	if v, ok := o.RTTSeconds[c.Setup]; ok && v > 0 {
		return rttCtx{seconds: v, emulated: true}
	}
	l := lastLeader(c)
	if v, ok := c.Environment.WriteRTTSeconds[l]; ok && l != "" && v > 0 {
		return rttCtx{seconds: v, emulated: true, leader: l, write: true}
	}
	if rt := c.Environment.CommitRTTSeconds; len(rt) > 0 {
		if v, ok := rt[l]; ok && l != "" {
			return rttCtx{seconds: v, emulated: true, leader: l}
		}
		vs := make([]float64, 0, len(rt))
		for _, v := range rt {
			vs = append(vs, v)
		}
		slices.Sort(vs)
		return rttCtx{seconds: vs[len(vs)/2], emulated: true}
	}
	if d, err := time.ParseDuration(c.Params["rtt"]); err == nil && d > 0 {
		return rttCtx{seconds: d.Seconds(), emulated: true}
	}
	return rttCtx{seconds: m.PeerRTTP99, loopback: c.Environment.LocalCluster}
}

// lastLeader is the member that led at the end of the cell's last run
// with server series, or "".
func lastLeader(c *result.Cell) string {
	for i := len(c.Runs) - 1; i >= 0; i-- {
		if c.Runs[i].Server == nil {
			continue
		}
		for _, ms := range c.Runs[i].Server.Members {
			if n := len(ms.Points); n > 0 && ms.Points[n-1].IsLeader {
				return ms.Name
			}
		}
	}
	return ""
}

func baseFigures(m result.Measures) map[string]float64 {
	f := map[string]float64{string(result.MetricThroughput): m.Throughput.Mean, figLatencyP50: m.P50.Mean, figLatencyP99: m.P99.Mean}
	if m.Clients > 0 {
		f[figClients] = float64(m.Clients)
	}
	if m.ServerRuns > 0 {
		f[string(result.MetricMemberCPU)] = m.MemberCPUCores
		if m.WALFsyncP99 > 0 {
			f[string(result.MetricWALFsyncP99)], f[string(result.MetricWALBusy)] = m.WALFsyncP99, m.WALBusy
		}
	}
	if m.LoadCPURuns > 0 {
		f[string(result.MetricLoadCPU)] = m.LoadCPUCores
	}
	return f
}

// faultList renders the fault timeline: "kill leader at 10 s (new leader
// after 1.1 s), heal at 25 s".
func faultList(faults []result.FaultEvent) string {
	var parts []string
	for _, e := range faults {
		s := e.Action
		if e.Target != "" {
			s += " " + e.Target
		}
		s += " at " + secs(e.AtSeconds)
		if e.NewLeaderSeconds > 0 {
			s += " (new leader after " + secs(e.NewLeaderSeconds) + ")"
		}
		if e.Error != "" {
			s += " (failed: " + e.Error + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// ratio renders a share as a whole percentage.
func ratio(v float64) string { return fmt.Sprintf("%.0f%%", math.Round(v*100)) }

// Missing returns the statements a report of doc shows that doc does not
// state, computed as Fill would with zero Options: by cell index the
// statement of each cell that has none (nil where the cell states its
// own), and the sweep's when the experiment states none. ok is false when
// there is nothing to compute (doc states them all, or is no experiment).
// doc is not modified.
func Missing(doc *result.Document) (cells []*result.Bottleneck, sweep *result.Bottleneck, ok bool) {
	exp := doc.Experiment
	if exp == nil {
		return nil, nil, false
	}
	cells = make([]*result.Bottleneck, len(exp.Cells))
	for i := range exp.Cells {
		if exp.Cells[i].Bottleneck == nil {
			cells[i] = Cell(doc, i, Options{})
			ok = ok || cells[i] != nil
		}
	}
	if exp.Bottleneck == nil {
		sweep = Sweep(doc, Options{})
		ok = ok || sweep != nil
	}
	return cells, sweep, ok
}
