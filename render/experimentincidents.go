package render

import (
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// incidentsTable is an incident catalogue's confusion table: per doctor
// cell, the cause and member injected, the top finding, every other
// finding, and the grade; with the count of incidents diagnosed right.
func (m expModel) incidentsTable() (Table, string, bool) {
	t := Table{Header: []string{"incident", "injected", "top finding", "other findings", "outcome"}}
	right, graded := 0, 0
	for _, c := range m.Cells {
		in := c.Cell.Incident
		if in == nil {
			if c.Cell.Status == result.CellSkipped {
				t.Rows = append(t.Rows, []string{c.Cell.Workload, "-", "-", "-", "skipped: " + c.Cell.Error})
			}
			continue
		}
		graded++
		if in.Outcome == result.IncidentRight {
			right++
		}
		expected := "nothing (healthy)"
		if in.ExpectCause != "" {
			expected = on(in.ExpectCause, in.ExpectMember)
		}
		top := "none"
		if in.TopCause != "" {
			top = in.TopStatus + " " + on(in.TopCause, in.TopMember)
		}
		others := "none"
		if len(in.Others) > 0 {
			others = strings.Join(in.Others, "; ")
		}
		outcome := in.Outcome
		if in.Why != "" {
			outcome += ": " + in.Why
		}
		t.Rows = append(t.Rows, []string{c.Cell.Workload, expected, top, others, outcome})
	}
	if len(t.Rows) == 0 {
		return t, "", false
	}
	return t, fmt.Sprintf("%d of %d incidents diagnosed right (the top finding is the injected cause on the injected member, and no other finding names another cause)", right, graded), true
}

// on is "disk on m2", or the cause alone for the cluster's.
func on(cause, member string) string {
	if member == "" {
		return cause
	}
	return cause + " on " + member
}
