package render

import (
	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/result"
)

// sizingGuideSource is the published sizing the sizing table sets each
// answer beside (result.SizeGuide.Source).
const sizingGuideSource = "etcd hardware guide"

// sizingTable sets each size cell's answer beside etcd's hardware guide
// for the same node count: the cell's workload (the tier), its nodes, the
// guide's cores and IOPS (and its tier when the workload is named
// otherwise), etcdlab's choice (members × cores, disk), its knee and
// headroom, the round-trip budget, and whether the choice has fewer or
// more cores per member than the guide, or agrees. The
// notes are each cell's Differs (where and why) and, for a cell without
// a choice, why. One row per cell with a size answer.
func (m expModel) sizingTable() (Table, []string, bool) {
	t := Table{Header: []string{"tier", "nodes", "the guide", "etcdlab's choice", "knee", "headroom", "RTT budget", "vs guide"}}
	var notes []string
	for _, c := range m.Cells {
		s := c.Cell.Size
		if s == nil {
			continue
		}
		tier := c.Cell.Workload
		nodes := "-"
		if s.Target.Nodes > 0 {
			nodes = humanize.Comma(int64(s.Target.Nodes))
		}
		guide, vs := "-", "-"
		g := sizingGuide(s)
		if g != nil {
			guide = cores(g.CPUs)
			if g.IOPS > 0 {
				guide += ", " + humanize.Comma(int64(g.IOPS)) + " IOPS"
			}
			if g.Tier != tier {
				guide += " (" + g.Tier + ")"
			}
		}
		choice, knee, headroom := "none", "-", "-"
		if ch := sizeCandidate(s, s.Choice); ch != nil {
			choice = sizeShape(*ch)
			switch ch.Disk {
			case "", "disk":
				choice += ", this disk"
			default:
				choice += ", " + sizeDisk(ch.Disk)
			}
			knee, headroom = sizeKnee(*ch, s.Target), sizeHeadroom(*ch)
			if g != nil {
				vs = sizingVs(ch.CPUs, g.CPUs)
			}
		} else {
			vs = "no choice"
			if s.ChoiceWhy != "" {
				notes = append(notes, tier+": no choice: "+s.ChoiceWhy)
			}
		}
		if g != nil && g.Differs != "" {
			notes = append(notes, tier+": "+g.Differs)
		}
		t.Rows = append(t.Rows, []string{tier, nodes, guide, choice, knee, headroom, sizingRTT(s.RTT), vs})
	}
	return t, notes, len(t.Rows) > 0
}

// sizingGuide is the answer's etcd hardware guide row, or nil.
func sizingGuide(s *result.Size) *result.SizeGuide {
	for i := range s.Guide {
		if s.Guide[i].Source == sizingGuideSource {
			return &s.Guide[i]
		}
	}
	return nil
}

// sizingVs compares the choice's cores per member with the guide's (the
// notes say by how much and why).
func sizingVs(ours, guide float64) string {
	switch {
	case ours < guide:
		return "fewer cores"
	case ours > guide:
		return "more cores"
	}
	return "agrees"
}

// sizingRTT is the measured round-trip budget, a bound when every round
// trip probed held; "-" when not searched.
func sizingRTT(r *result.SizeRTT) string {
	switch {
	case r == nil:
		return "-"
	case r.Above:
		return "≥ " + msOr(r.BudgetMs, "0 ms")
	}
	return msOr(r.BudgetMs, "0 ms")
}
