package render

import (
	"fmt"
	"strconv"
)

// upgradesTable lists the rolling upgrades of the cells' timelines, one
// row per member replaced: its window, how long it was down, how long
// the cluster served no read (the upgrade's canary), and the load's
// failed requests and client unavailability inside the window. The notes
// say what went wrong with an upgrade, and the failures outside every
// window. ok is false when no cell upgraded.
func (m expModel) upgradesTable() (t Table, notes []string, ok bool) {
	t = Table{Header: []string{"cell", "at", "member", "etcd", "window", "down", "cluster unavailable", "client errors", "client unavailable"}}
	for _, c := range m.Cells {
		for _, e := range c.Cell.Faults {
			if e.Action != "upgrade" {
				continue
			}
			ok = true
			at := fmt.Sprintf("%gs to %s", e.AtSeconds, e.Target)
			u := e.Upgrade
			if e.Error != "" {
				notes = append(notes, fmt.Sprintf("%s: the upgrade at %s: %s", c.Cell.ID, at, e.Error))
			}
			if u == nil {
				continue
			}
			for _, s := range u.Steps {
				member := s.Member
				if s.WasLeader {
					member += " (leader"
					if s.HandedTo != "" {
						member += ", to " + s.HandedTo
					}
					member += ")"
				}
				t.Rows = append(t.Rows, []string{c.Cell.ID, at, member, s.From + " -> " + s.To,
					secs(s.Ready.Sub(s.Began).Seconds()), secs(s.DownSeconds), secs(s.ClusterUnavailableSeconds()),
					strconv.FormatInt(s.ClientErrors, 10), secs(s.ClientUnavailableSeconds)})
			}
			if u.ClientErrorsOutside > 0 {
				notes = append(notes, fmt.Sprintf("%s: the upgrade at %s: %d failed requests were sent outside every member's window", c.Cell.ID, at, u.ClientErrorsOutside))
			}
		}
	}
	return t, notes, ok
}

// secs is a figure in seconds with two decimals ("1.25s").
func secs(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "s" }
