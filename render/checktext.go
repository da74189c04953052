package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// CheckText writes a check's verdict table, explanations, overall verdict,
// highest load level passed, the latency floor, and what could not be
// measured.
func CheckText(w io.Writer, doc *result.Document) error {
	c := doc.Check
	var b strings.Builder
	writeVerdicts(&b, doc.Verdicts)
	highest := c.Highest
	if highest == "" {
		highest = "none"
	}
	fmt.Fprintf(&b, "overall: %s; highest load level passed: %s\n", doc.Overall, highest)
	if f := c.Floor; f != nil {
		fmt.Fprintf(&b, "latency floor: 1-client put p50 %s against a floor of %s (fsync %s from the %s + round trip %s from the %s): %.1fx the floor\n",
			units.Seconds(f.ProbeP50), units.Seconds(f.FloorSeconds), units.Seconds(f.FsyncSeconds), f.FsyncFrom, units.Seconds(f.RTTSeconds), f.RTTFrom, f.RatioToFloor)
	}
	for _, p := range c.Partial {
		fmt.Fprintf(&b, "partial: %s\n", p)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// checkTables are the tables of a check document's HTML and Markdown.
func checkTables(doc *result.Document) []namedTable {
	c := doc.Check
	lv := Table{Header: []string{"level", "target writes/s", "clients", "achieved writes/s", "p50", "p99", "slowest", "stddev", "WAL fsync p99", "commit p99", "result"}}
	for i, l := range c.Levels {
		r := result.Run{}
		if i < len(doc.Runs) {
			r = doc.Runs[i]
		}
		res := "passed"
		if !l.Passed {
			res = "failed: " + strings.Join(l.Why, "; ")
		}
		lv.Rows = append(lv.Rows, []string{l.Name, fmt.Sprintf("%.0f", l.Rate), fmt.Sprint(l.Clients), f1(r.ThroughputRPS), units.Seconds(r.Latency.P50), units.Seconds(r.Latency.P99),
			units.Seconds(r.Latency.Max), units.Seconds(r.Latency.Stddev), secOrDash(l.WalFsyncP99), secOrDash(l.BackendCommitP99), res})
	}
	mb := Table{Header: []string{"member", "WAL fsync p99", "commit p99", "peer RTT p99", "leader changes", "slow applies", "failed proposals", "heartbeat failures", "CPU (cores)", "RSS"}}
	for _, m := range c.Members {
		if m.Error != "" {
			mb.Rows = append(mb.Rows, []string{m.Name, "could not read: " + m.Error})
			continue
		}
		rtt := "-"
		if m.PeerRTTSamples > 0 {
			rtt = units.Seconds(m.PeerRTTP99)
		}
		mb.Rows = append(mb.Rows, []string{m.Name, secOrDash(m.WalFsyncP99), secOrDash(m.BackendCommitP99), rtt, fmt.Sprintf("%.0f", m.LeaderChanges),
			fmt.Sprintf("%.0f", m.SlowApplies), fmt.Sprintf("%.0f", m.ProposalsFailed), fmt.Sprintf("%.0f", m.HeartbeatFailures), fmt.Sprintf("%.2f", m.CPUCores), humanize.IBytes(uint64(m.RSSBytes))})
	}
	cn := Table{Header: []string{"endpoint", "TCP connect (median of 5)"}}
	for _, x := range c.Connect {
		v := units.Seconds(x.Seconds)
		if x.Error != "" {
			v = "failed: " + x.Error
		}
		cn.Rows = append(cn.Rows, []string{x.Endpoint, v})
	}
	out := []namedTable{{"Load levels (etcdctl check perf's)", lv}, {"Server metrics over the check", mb}, {"Network", cn}}
	if f := c.Floor; f != nil {
		out = append(out, namedTable{"Latency floor", Table{Header: []string{"", ""}, Rows: [][]string{
			{"1-client put p50", units.Seconds(f.ProbeP50)}, {"fsync", units.Seconds(f.FsyncSeconds) + " (" + f.FsyncFrom + ")"},
			{"round trip", units.Seconds(f.RTTSeconds) + " (" + f.RTTFrom + ")"}, {"floor", units.Seconds(f.FloorSeconds)}, {"ratio to the floor", fmt.Sprintf("%.1fx", f.RatioToFloor)}}}})
	}
	if doc.Disk != nil {
		out = append(out, namedTable{"Disk probe", jobsTableData(doc.Disk)})
	}
	return out
}

func secOrDash(v float64) string {
	if v != v || v == 0 { // NaN or nothing observed
		return "-"
	}
	return units.Seconds(v)
}
