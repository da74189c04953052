package render

import (
	"fmt"
	"strconv"

	"github.com/etcdlab/etcdlab/result"
)

// upgradesTable lists the rolling upgrades of the cells' timelines, one
// row per member replaced: the upgrade's time, the versions, the step's
// window, how long the member was down, how long the cluster served no
// read (the upgrade's canary), and the load's failed requests and client
// unavailability inside the window. A cell column is there when more
// than one cell upgraded. The notes give each upgrade's totals and
// hand-over, what went wrong with one, and the failures outside every
// window. ok is false when no cell upgraded.
func (m expModel) upgradesTable() (t Table, notes []string, ok bool) {
	cells := 0
	for _, c := range m.Cells {
		for _, e := range c.Cell.Faults {
			if isMove(e) {
				cells++
				break
			}
		}
	}
	if cells == 0 {
		return t, nil, false
	}
	t.Header = []string{"at", "member", "etcd", "window", "down", "cluster unav.", "client errors", "client unav."}
	if cells > 1 {
		t.Header = append([]string{"cell"}, t.Header...)
	}
	for _, c := range m.Cells {
		for _, e := range c.Cell.Faults {
			if !isMove(e) {
				continue
			}
			at := fmt.Sprintf("%gs", e.AtSeconds)
			what := fmt.Sprintf("the %s at %s to %s", e.Action, at, e.Target)
			if cells > 1 {
				what = c.Cell.ID + ": " + what
			}
			u := e.Upgrade
			if e.Error != "" {
				notes = append(notes, what+": "+e.Error)
			}
			if u == nil {
				continue
			}
			summary := fmt.Sprintf("%s: %d members in %.1fs", what, len(u.Steps), u.Seconds)
			if u.ClusterVersionSeconds > 0 {
				summary += fmt.Sprintf(", the cluster version followed %.1fs after the last", u.ClusterVersionSeconds)
			}
			for _, s := range u.Steps {
				member := s.Member
				if s.WasLeader {
					member += " (leader)"
					if s.HandedTo != "" {
						summary += fmt.Sprintf("; %s led and handed over to %s first", s.Member, s.HandedTo)
					}
				}
				row := []string{at, member, s.From + " -> " + s.To,
					secs(s.Ready.Sub(s.Began).Seconds()), secs(s.DownSeconds), secs(s.ClusterUnavailableSeconds()),
					strconv.FormatInt(s.ClientErrors, 10), secs(s.ClientUnavailableSeconds)}
				if cells > 1 {
					row = append([]string{c.Cell.ID}, row...)
				}
				t.Rows = append(t.Rows, row)
			}
			if len(u.Steps) > 0 {
				notes = append(notes, summary)
			}
			if u.ClientErrorsOutside > 0 {
				notes = append(notes, fmt.Sprintf("%s: %d failed requests were sent outside every member's window", what, u.ClientErrorsOutside))
			}
		}
	}
	notes = append(notes, "Upgrades: unav. is unavailable, the cluster's from the upgrade's canary (a linearizable read every 100 ms), the clients' from the load's requests; a window runs from the step's start (a leader's hand-over first) to the new member healthy and caught up; failed requests count by the second they were sent in.")
	return t, notes, true
}

// isMove reports whether e moved the members' etcd: an upgrade or a
// downgrade step (lab/cluster's faults of those names).
func isMove(e result.FaultEvent) bool { return e.Action == "upgrade" || e.Action == "downgrade" }

// secs is a figure in seconds with two decimals ("1.25s").
func secs(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "s" }
