package render

import (
	"fmt"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// replayText is a replay's fidelity: each figure of the profile beside
// the target's during the replay, with its ratio and tolerance, then the
// requests per operation and whether the profile's rate was reached. ""
// for other runs.
func replayText(run result.Run) string {
	rp := run.Replay
	if rp == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nReplay of %s (speed %g, scale %g)", rp.Profile, rp.Speed, rp.Scale)
	if rp.PreloadKeys > 0 {
		fmt.Fprintf(&b, " on a keyspace preloaded with %s keys (%s)", humanize.Comma(rp.PreloadKeys), humanize.IBytes(uint64(rp.PreloadBytes)))
	}
	switch {
	case len(rp.Rows) == 0:
		b.WriteString(": no fidelity figures\n")
	case rp.Off == 0:
		fmt.Fprintf(&b, ": every one of %d figures within its tolerance\n", len(rp.Rows))
	default:
		fmt.Fprintf(&b, ": %d of %d figures OFF their tolerance\n", rp.Off, len(rp.Rows))
	}
	if len(rp.Rows) > 0 {
		rows := make([][]string, 0, len(rp.Rows))
		notes := false
		for _, r := range rp.Rows {
			notes = notes || r.Note != ""
		}
		for _, r := range rp.Rows {
			verdict := "ok"
			if r.Off {
				verdict = "OFF"
			}
			name := r.Name
			if r.Unit != "" && r.Unit != "B" {
				name += " (" + r.Unit + ")"
			}
			row := []string{name, fidelityFigure(r.Want, r.Unit), fidelityFigure(r.Got, r.Unit), fmt.Sprintf("%.2f", r.Ratio), fmt.Sprintf("±%.0f%%", 100*r.Tolerance), verdict}
			if notes {
				row = append(row, r.Note)
			}
			rows = append(rows, row)
		}
		head := []string{"figure", "profile", "replay", "ratio", "tolerance", ""}
		if notes {
			head = append(head, "note")
		}
		_ = table.Write(&b, head, rows)
	}
	if len(run.Ops) > 1 {
		b.WriteString("Requests by operation:")
		for _, op := range run.Ops {
			fmt.Fprintf(&b, " %s %s (p99 %s)", op.Name, humanize.Comma(opCount(op.Stats)), secs3(op.Latency.P99))
		}
		b.WriteString("\n")
	}
	if rp.Reach != "" {
		fmt.Fprintf(&b, "Rate not reached: %s.\n", rp.Reach)
	}
	for _, n := range rp.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	return b.String()
}

// fidelityFigure is a fidelity figure in its unit: bytes in IEC units, rates and
// counts with one decimal below 100.
func fidelityFigure(v float64, unit string) string {
	switch {
	case unit == "B":
		return humanize.IBytes(uint64(max(0, v)))
	case v >= 100:
		return humanize.Comma(int64(v + 0.5))
	}
	return fmt.Sprintf("%.1f", v)
}
