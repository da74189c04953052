package render

import (
	"fmt"
	"strings"
)

// replayTable lists how closely each replay cell followed its profile:
// the figures within their tolerance, those off (with their ratios), and
// why the profile's rate was not reached when it was not. One row per
// measured run that replayed a profile.
func (m expModel) replayTable() (Table, bool) {
	t := Table{Header: []string{"cell", "run", "within tolerance", "off", "rate reached"}}
	for _, c := range m.Cells {
		for _, r := range c.Cell.Runs {
			rp := r.Replay
			if rp == nil {
				continue
			}
			var off []string
			for _, row := range rp.Rows {
				if row.Off {
					off = append(off, fmt.Sprintf("%s %.2f×", row.Name, row.Ratio))
				}
			}
			reached := "yes"
			if rp.Reach != "" {
				reached = "no: " + rp.Reach
			}
			offText := strings.Join(off, ", ")
			if offText == "" {
				offText = "-"
			}
			t.Rows = append(t.Rows, []string{c.Cell.ID, r.Name, fmt.Sprintf("%d of %d", len(rp.Rows)-rp.Off, len(rp.Rows)), offText, reached})
		}
	}
	return t, len(t.Rows) > 0
}
