package render

import (
	"fmt"
	"io"

	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// UpgradeTable writes a rolling upgrade's document (result.KindUpgrade,
// `etcdlab cluster upgrade`) as a line of totals and a table, one row per
// member replaced. It keeps nothing: concurrent calls are safe.
func UpgradeTable(w io.Writer, doc *result.Document) error {
	rep := doc.Upgrade
	if rep == nil {
		return fmt.Errorf("an upgrade document without its upgrade")
	}
	what := "upgraded"
	if rep.Downgrade {
		unavail := 0.0
		if u := rep.DowngradeUnavailability; u != nil {
			unavail = u.TotalSeconds
		}
		what = fmt.Sprintf("downgraded (downgrade enabled in %.1f s, the cluster unavailable %.2f s meanwhile)", rep.DowngradeSeconds, unavail)
	}
	fmt.Fprintf(w, "%s %d members to etcd %s in %.1f s; every member said the cluster version was the new one %.1f s after the last step\n",
		what, len(rep.Steps), rep.To, rep.Seconds, rep.ClusterVersionSeconds)
	rows := make([][]string, 0, len(rep.Steps))
	for _, s := range rep.Steps {
		leader := ""
		if s.WasLeader {
			leader = "led; handed to " + s.HandedTo
		}
		unavail := "0 s"
		if u := s.ClusterUnavailability; u != nil {
			unavail = fmt.Sprintf("%.2f s (%d windows, longest %.2f s)", u.TotalSeconds, len(u.Windows), u.LongestSeconds)
		}
		rows = append(rows, []string{s.Member, s.From, s.To, leader, fmt.Sprintf("%.2f s", s.DownSeconds), unavail})
	}
	return table.Write(w, []string{"MEMBER", "FROM", "TO", "LEADER", "DOWN", "CLUSTER UNAVAILABLE"}, rows)
}
