package size

import (
	"fmt"

	"github.com/etcdlab/etcdlab/result"
)

// Published sizing, with their sources (docs/sizing.md quotes them).
const (
	refEtcdGuide = "etcd hardware guide (etcd-io/website content/en/docs/v3.6/op-guide/hardware.md): example Kubernetes clusters, AWS m4 instances, dedicated machines"
	refOpenShift = "OpenShift control-plane sizing from density tests (docs 4.5-4.9), usage kept at or below 60%; the cores are a whole control-plane node's (kube-apiserver, etcd, controllers), not etcd's alone"
)

// tier is one row of a published sizing table.
type tier struct {
	name  string
	nodes int
	cpus  float64
	memGB float64
	iops  int
}

// etcdTiers is the hardware guide's table.
func etcdTiers() []tier {
	return []tier{
		{"small", 50, 2, 8, 3600},
		{"medium", 250, 4, 16, 6000},
		{"large", 1000, 8, 32, 8000},
		{"xlarge", 3000, 16, 64, 16000},
	}
}

// openShiftTiers is OpenShift's control-plane table (workers).
func openShiftTiers() []tier {
	return []tier{
		{"25 workers", 25, 4, 16, 0},
		{"100 workers", 100, 8, 32, 0},
		{"250 workers", 250, 16, 96, 0},
	}
}

// tierFor is the smallest row for nodes, and whether the table reaches it.
func tierFor(ts []tier, nodes int) (tier, bool) {
	for _, t := range ts {
		if nodes <= t.nodes {
			return t, true
		}
	}
	return ts[len(ts)-1], false
}

// guide sets the published sizing for the target's node count beside the
// answer, saying where and why it differs.
func guide(s *result.Size) []result.SizeGuide {
	n := s.Target.Nodes
	if n <= 0 {
		return nil
	}
	var chosen *result.SizeCandidate
	for i := range s.Candidates {
		if s.Candidates[i].Name == s.Choice {
			chosen = &s.Candidates[i]
		}
	}
	var out []result.SizeGuide
	et, within := tierFor(etcdTiers(), n)
	g := result.SizeGuide{Source: "etcd hardware guide", Tier: et.name, Nodes: et.nodes, CPUs: et.cpus, MemoryGB: et.memGB, IOPS: et.iops, Ref: refEtcdGuide}
	g.Differs = differs(s, chosen, et.cpus, "the guide's "+et.name+" tier")
	if !within {
		g.Differs = fmt.Sprintf("%d nodes is beyond the guide's largest example (%d nodes); %s", n, et.nodes, g.Differs)
	}
	out = append(out, g)
	ot, within := tierFor(openShiftTiers(), n)
	o := result.SizeGuide{Source: "OpenShift", Tier: ot.name, Nodes: ot.nodes, CPUs: ot.cpus, MemoryGB: ot.memGB, Ref: refOpenShift}
	o.Differs = differs(s, chosen, ot.cpus, "OpenShift's "+ot.name+" row") +
		" (OpenShift's cores are a whole control-plane node's: etcd's share is smaller by construction)"
	if !within {
		o.Differs = fmt.Sprintf("%d nodes is beyond OpenShift's table (250 workers; OpenShift Dedicated caps at 249 nodes since 4.14.14); ", n) + o.Differs
	}
	return append(out, o)
}

// differs compares the choice's cores per member with a published row's.
func differs(s *result.Size, chosen *result.SizeCandidate, cpus float64, row string) string {
	if chosen == nil {
		return fmt.Sprintf("no candidate held with headroom, so etcdlab cannot confirm %s (%g cores)", row, cpus)
	}
	at := fmt.Sprintf("at the target (%.0f writes/s, %.0f reads/s, %.0f watch events/s) the busiest member used %.0f%% of %s",
		s.Load.WritesPerSecond, s.Load.ReadsPerSecond, s.Load.WatchEventsPerSecond, 100*chosen.Headroom, coreWords(chosen.CPUs))
	switch {
	case chosen.CPUs < cpus:
		return fmt.Sprintf("fewer cores than %s (%g against %g per member): %s; the row is sized for more requests and clients than this load, on machines that may serve more than etcd",
			row, chosen.CPUs, cpus, at)
	case chosen.CPUs > cpus:
		return fmt.Sprintf("more cores than %s (%g against %g per member): no smaller candidate held with headroom; the row has no fsync figure and no watchers or object sizes, which this load has",
			row, chosen.CPUs, cpus)
	}
	return fmt.Sprintf("agrees with %s (%g cores per member): %s", row, cpus, at)
}

// method states how the answer was measured.
func method(r *runner, s *result.Size) []string {
	res := resolution
	top := maxMult
	if r.o.Quick {
		res, top = resolutionQuick, maxMultQuick
	}
	lines := []string{
		fmt.Sprintf("Each probe is a fresh cluster of the candidate's members with the load's keyspace preloaded, then the load played open loop for %s by bench replay (a one-cell experiment); it holds when every SLO below holds.", r.dur),
		fmt.Sprintf("The knee is searched on the size: the target first, then doubling (up to ×%d, down to ×1/16) until the verdict changes, then bisection until the knee is known within %.0f%%; every size scales nodes, pods, services, deployments and churn together.", top, 100*(res-1)),
		fmt.Sprintf("A candidate whose members need more than the lab's %.2f cores together runs scaled down by a factor k: every rate and key of the load times k, and each member's CPU budget idle + k × (cores − idle), where idle (%.3f cores, a member's CPU under 1/64 of the target's load, measured here) stands for what does not scale (heartbeats, metrics scrapes, Go's runtime, the load's watchers, connections and leases, etcd's batching timers). The disk, the round trips, the watchers per key and the object sizes are not scaled: a disk- or distance-bound knee is measured at k times the target's write rate, which batches fewer writes per fsync than the target would (docs/sizing.md, \"Method\", has the error measured against direct runs).",
			r.labCores, r.idle),
		"Headroom is the busiest member's CPU at the target projected to the candidate (idle + (measured − idle)/k) over its cores; OpenShift keeps it at or below 60% so that losing one member of three does not cascade.",
	}
	if s.Load.DBMethod != "" {
		lines = append(lines, "Database: "+s.Load.DBMethod+".")
	}
	if r.o.RTTBudget {
		lines = append(lines, "The round-trip budget is searched at the target on one candidate, with etcd's default heartbeat (100 ms) and election timeout (1 s), the round trip the same between every pair of members: doubling from 10 ms, then bisection.")
	}
	return lines
}

// coreWords is a number of cores in words ("1 core", "4 cores").
func coreWords(c float64) string {
	if c == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%g cores", c)
}
