package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// serverText is the "Server (per member)" block bench prints after etcd
// benchmark's report: per run that has server series, one row per member
// (the leader at the end of the run marked) with the run's WAL fsync and
// backend commit p99, CPU (mean and highest interval, in cores), RSS, disk
// writes (local clusters), leader changes and slow applies, then the first
// error of each member whose scrapes failed. It is empty when no run was
// scraped.
func serverText(doc *result.Document) string {
	var b strings.Builder
	for _, run := range doc.Runs {
		srv := run.Server
		if srv == nil {
			continue
		}
		during := ""
		if len(doc.Runs) > 1 {
			during = " during " + run.Name
		}
		fmt.Fprintf(&b, "\nServer (per member)%s, from each member's /metrics every %s", during, dur(srv.IntervalSeconds))
		if doc.Environment.LocalCluster {
			b.WriteString(", disk writes from /proc")
		}
		b.WriteString(":\n")
		rows := make([][]string, 0, len(srv.Members))
		var failed []string
		for _, m := range srv.Members {
			s := m.Summary
			name := m.Name
			if n := len(m.Points); n > 0 && m.Points[n-1].IsLeader {
				name += " (leader)" // at the end of the run
			}
			row := []string{name, "-", "-", "-", "-", "-", "-", "-", strconv.FormatInt(m.ScrapeErrors, 10)}
			if len(m.Points) > 0 {
				row[1], row[2] = quantile(s.WALFsyncP99, result.LowestDiskBucket), quantile(s.BackendCommitP99, result.LowestDiskBucket)
				row[3] = fmt.Sprintf("%.2f/%.2f", s.CPUCoresMean, s.CPUCoresMax)
				row[4] = fmt.Sprintf("%.1f MiB", s.RSSMaxBytes/(1<<20))
				if doc.Environment.LocalCluster && run.DurationSeconds > 0 {
					row[5] = fmt.Sprintf("%.1f MB/s", s.DiskWriteBytes/run.DurationSeconds/1e6)
				}
				row[6], row[7] = units.Count(s.LeaderChanges), units.Count(s.SlowApplies)
			}
			rows = append(rows, row)
			if m.FirstError != "" {
				failed = append(failed, fmt.Sprintf("  %s: %d scrape(s) failed, the first: %s\n", m.Name, m.ScrapeErrors, m.FirstError))
			}
		}
		_ = table.WriteWrapped(&b, []string{"MEMBER", "FSYNC P99", "COMMIT P99", "CPU MEAN/MAX", "RSS MAX", "DISK WRITE", "LEADER CHG", "SLOW APPLY", "SCRAPE ERR"}, rows, 120)
		for _, f := range failed {
			b.WriteString(f)
		}
	}
	return b.String()
}

// quantile renders a quantile of a server histogram whose lowest bucket
// ends at lowest: "-" when it observed nothing, "≤ lowest" when the
// quantile fell in that bucket.
func quantile(s, lowest float64) string {
	if s != s || s <= 0 { // NaN or nothing observed
		return "-"
	}
	return units.Quantile(s, lowest)
}
