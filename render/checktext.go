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
// highest load level passed, the latency floor with the source of each of
// its terms, and what could not be measured. Unless o.Wide, every line
// stays within TermWidth columns.
func CheckText(w io.Writer, doc *result.Document, o TerminalOptions) error {
	c := doc.Check
	var b strings.Builder
	writeVerdicts(&b, doc.Verdicts, o)
	highest := c.Highest
	if highest == "" {
		highest = "none"
	}
	fmt.Fprintf(&b, "overall: %s; highest load level passed: %s\n", doc.Overall, highest)
	if f := c.Floor; f != nil {
		o.prose(&b, "latency floor: ", floorHeadline(f), "  ")
		o.prose(&b, "  fsync "+zeroOr(f.FsyncSeconds)+": ", f.FsyncFrom, "    ")
		o.prose(&b, "  round trip "+zeroOr(f.RTTSeconds)+": ", f.RTTFrom, "    ")
		if f.PeerRTTP50 > 0 {
			o.prose(&b, "  for information, etcd's peer round trip "+units.Seconds(f.PeerRTTP50)+": ", f.PeerRTTFrom, "    ")
		}
	}
	for _, p := range c.Partial {
		o.prose(&b, "partial: ", p, "  ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// floorHeadline compares the probe's p50 with the floor. A floor above the
// p50 is said to be a wrong estimate, with why, before any ratio below 1.
func floorHeadline(f *result.Floor) string {
	p50 := units.Seconds(f.ProbeP50)
	switch {
	case f.FloorSeconds > f.ProbeP50:
		return fmt.Sprintf("%s, above the 1-client put p50 of %s (%.2fx): %s", units.Seconds(f.FloorSeconds), p50, f.RatioToFloor, floorWrong(f))
	case f.FloorSeconds <= 0:
		return fmt.Sprintf("none above 0 for the 1-client put p50 of %s: no term of the floor could be bounded above 0", p50)
	default:
		return fmt.Sprintf("1-client put p50 %s is %.1fx the floor of %s", p50, f.RatioToFloor, units.Seconds(f.FloorSeconds))
	}
}

// floorWrong says why a floor above the probe's p50 is wrong: the result's
// own explanation, or (for results written before etcdlab gave one) which
// terms there were.
func floorWrong(f *result.Floor) string {
	if f.Wrong != "" {
		return f.Wrong
	}
	return fmt.Sprintf("the floor estimate is wrong: the 1-client put p50 is below it, so a term exceeded what the probe achieved (fsync %s from %s; round trip %s from %s)",
		zeroOr(f.FsyncSeconds), f.FsyncFrom, zeroOr(f.RTTSeconds), f.RTTFrom)
}

// floorRatio is the ratio row of the floor's table.
func floorRatio(f *result.Floor) string {
	switch {
	case f.FloorSeconds > f.ProbeP50:
		return fmt.Sprintf("%.2fx: %s", f.RatioToFloor, floorWrong(f))
	case f.FloorSeconds <= 0:
		return "none: no term of the floor could be bounded above 0"
	default:
		return fmt.Sprintf("%.1fx", f.RatioToFloor)
	}
}

// zeroOr renders 0 as "0", anything else as units.Seconds does.
func zeroOr(s float64) string {
	if s == 0 {
		return "0"
	}
	return units.Seconds(s)
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
			units.Seconds(r.Latency.Max), units.Seconds(r.Latency.Stddev), quantile(l.WalFsyncP99, result.LowestDiskBucket), quantile(l.BackendCommitP99, result.LowestDiskBucket), res})
	}
	mb := Table{Header: []string{"member", "WAL fsync p99", "commit p99", "peer RTT p99", "leader changes", "slow applies", "failed proposals", "heartbeat failures", "CPU (cores)", "RSS"}}
	for _, m := range c.Members {
		if m.Error != "" {
			mb.Rows = append(mb.Rows, []string{m.Name, "could not read: " + m.Error})
			continue
		}
		rtt := "-"
		if m.PeerRTTSamples > 0 {
			rtt = quantile(m.PeerRTTP99, result.LowestPeerRTTBucket)
		}
		mb.Rows = append(mb.Rows, []string{m.Name, quantile(m.WalFsyncP99, result.LowestDiskBucket), quantile(m.BackendCommitP99, result.LowestDiskBucket), rtt, fmt.Sprintf("%.0f", m.LeaderChanges),
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
		ft := Table{Header: []string{"", ""}, Rows: [][]string{
			{"1-client put p50", units.Seconds(f.ProbeP50)},
			{"fsync term", zeroOr(f.FsyncSeconds) + " (" + f.FsyncFrom + ")"},
			{"round-trip term", zeroOr(f.RTTSeconds) + " (" + f.RTTFrom + ")"},
			{"floor (a lower bound)", zeroOr(f.FloorSeconds)},
			{"ratio to the floor", floorRatio(f)}}}
		if f.PeerRTTP50 > 0 {
			ft.Rows = append(ft.Rows, []string{"etcd's peer round trip, for information", units.Seconds(f.PeerRTTP50) + " (" + f.PeerRTTFrom + ")"})
		}
		out = append(out, namedTable{"Latency floor", ft})
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
