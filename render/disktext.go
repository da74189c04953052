package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// DiskText writes a disk qualification for people: what ran (and the fio
// line it reproduces), each job's figures with units, the verdicts with
// their thresholds and sources, and the warnings.
func DiskText(w io.Writer, doc *result.Document) error {
	d := doc.Disk
	var b strings.Builder
	fmt.Fprintf(&b, "etcdlab disk: %s profile on %s (%s", d.Profile, d.Dir, d.Filesystem)
	if d.Device != "" {
		fmt.Fprintf(&b, ", device %s", d.Device)
	}
	fmt.Fprintf(&b, ")\nequivalent: %s\n", d.Equivalent)
	for _, j := range d.Jobs {
		fmt.Fprintf(&b, "\n%s, %d B blocks, queue depth %d%s:\n", j.Name, j.BlockSize, j.QueueDepth, map[bool]string{true: ", O_DIRECT"}[j.Direct])
		fmt.Fprintf(&b, "  %d ops in %.2f s: %.0f IOPS", j.Ops, j.RuntimeSeconds, j.IOPS)
		if j.ReadOps > 0 && j.WriteOps > 0 {
			fmt.Fprintf(&b, " (read %.0f, write %.0f)", j.ReadIOPS, j.WriteIOPS)
		}
		fmt.Fprintf(&b, ", %s/s\n", humanize.IBytes(uint64(j.BandwidthBytesS)))
		if j.SyncLatency != nil {
			latencyBlock(&b, j.Sync+" latency", j.SyncLatency)
		}
		if j.IOLatency != nil {
			what := "write latency"
			if j.ReadOps > 0 {
				what = "I/O latency"
			}
			latencyBlock(&b, what, j.IOLatency)
		}
		if j.StoppedEarly != "" {
			fmt.Fprintf(&b, "  stopped early: %s\n", j.StoppedEarly)
		}
	}
	if d.Suite != "" {
		fmt.Fprintf(&b, "\nsuite: %s\n", d.Suite)
	}
	if len(doc.Verdicts) > 0 {
		b.WriteString("\n")
		writeVerdicts(&b, doc.Verdicts)
		fmt.Fprintf(&b, "overall: %s\n", doc.Overall)
	}
	for _, warn := range d.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", warn)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func latencyBlock(b *strings.Builder, what string, l *result.DiskLatency) {
	fmt.Fprintf(b, "  %s: min %s, avg %s, max %s, stddev %s\n", what, units.Seconds(l.Min), units.Seconds(l.Mean), units.Seconds(l.Max), units.Seconds(l.Stddev))
	var parts []string
	for _, p := range l.Percentiles {
		parts = append(parts, fmt.Sprintf("%.2fth=%s", p.P, units.Seconds(p.Seconds)))
	}
	for i := 0; i < len(parts); i += 6 {
		fmt.Fprintf(b, "    %s\n", strings.Join(parts[i:min(i+6, len(parts))], ", "))
	}
}

// writeVerdicts renders verdicts as a table, then one line of explanation
// per WARN or FAIL.
func writeVerdicts(b *strings.Builder, vs []result.Verdict) {
	rows := make([][]string, 0, len(vs))
	for _, v := range vs {
		rows = append(rows, []string{v.Status, v.What, v.Display, v.Threshold, v.Source})
	}
	_ = table.Write(b, []string{"VERDICT", "MEASURED", "VALUE", "THRESHOLD", "SOURCE"}, rows)
	for _, v := range vs {
		if v.Explanation != "" {
			fmt.Fprintf(b, "%s: %s\n", v.Status, v.Explanation)
		}
	}
}
