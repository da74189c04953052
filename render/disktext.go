package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// DiskText writes a disk qualification for people: what ran (and the fio
// line it reproduces), each job's figures with units, the verdicts with
// their thresholds and sources, and the warnings. Unless o.Wide, the
// verdicts and warnings stay within TermWidth columns (the fio line is
// never wrapped, so that it can be copied).
func DiskText(w io.Writer, doc *result.Document, o TerminalOptions) error {
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
		writeVerdicts(&b, doc.Verdicts, o)
		fmt.Fprintf(&b, "overall: %s\n", doc.Overall)
	}
	for _, warn := range d.Warnings {
		o.prose(&b, "warning: ", warn, "  ")
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
