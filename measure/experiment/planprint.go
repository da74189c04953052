package experiment

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WritePlan writes what the plan would run, for --dry-run: the setups,
// each cell with its command line and estimated time, the fault timeline,
// and the estimated total. It names no temporary paths and no times, so
// the same plan prints the same text.
func WritePlan(w io.Writer, p *Plan) error {
	s := p.Spec
	var b strings.Builder
	fmt.Fprintf(&b, "experiment %s, profile %s: %s\n", s.Name, p.Profile, s.Title)
	if s.Source != "" {
		fmt.Fprintf(&b, "source: %s\n", s.Source)
	}
	b.WriteString("\nsetups:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i := range s.Setups {
		if !inProfile(s.Profiles[p.Profile], s.Setups[i].Name) {
			continue
		}
		desc := s.Describe(&s.Setups[i])
		if p.ownClusters(s.Setups[i].Name) {
			desc = "no cluster of its own: its cells' work starts its own clusters"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", s.Setups[i].Name, desc)
	}
	_ = tw.Flush()
	fmt.Fprintf(&b, "\ncells (%d):\n", len(p.Cells))
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for i, c := range p.Cells {
		fmt.Fprintf(tw, "  %d\t%s\t~%s\t%s\n", i+1, c.ID, roundDuration(c.Estimate), c.Command())
	}
	_ = tw.Flush()
	if len(s.Faults) > 0 {
		b.WriteString("\nfaults during each bench cell's measured run:\n")
		for _, f := range s.Faults {
			fmt.Fprintf(&b, "  %s\n", f.Describe())
		}
	}
	if len(p.Published) > 0 {
		fmt.Fprintf(&b, "\npublished figures shown beside ours: %d\n", len(p.Published))
	}
	if s.Knee != "" {
		fmt.Fprintf(&b, "\neach line's knee along %s: where its throughput halves or its time to Ready doubles\n", s.Knee)
	}
	for _, m := range s.Marks {
		fmt.Fprintf(&b, "marked on the curves along %s: %g, %s\n", m.Param, m.At, m.Label)
	}
	fmt.Fprintf(&b, "\nestimated time: %s (an estimate: %s per fresh cluster and more for slow disks and etcd binaries, builds of uncached etcd versions, bench runs bounded by --total at a throughput modelled from latency and CPU budgets; docs/experiments.md)\n",
		roundDuration(p.Estimate()), CellOverhead)
	if p.Builds > 0 {
		fmt.Fprintf(&b, "  of which %s builds etcd versions the build cache does not hold (once)\n", roundDuration(p.Builds))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Command is what the cell runs, as a command line.
func (c *Cell) Command() string { return c.Work.Command() }

// Describe is the fault as a phrase: "at 10s kill leader, restart after 5s".
func (f *Fault) Describe() string {
	action, target := f.Action()
	s := fmt.Sprintf("at %s %s %s", f.At.D(), action, target)
	if f.For > 0 {
		undo := about(action).Undo
		s += fmt.Sprintf(", %s after %s", undo, f.For.D())
	}
	return s
}

// roundDuration rounds to the second (to 100 ms under 10 s).
func roundDuration(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// ownClusters reports whether the plan has cells on setup and every one
// of them starts its own clusters (job.OwnClusters): the setup's cluster
// is never started.
func (p *Plan) ownClusters(setup string) bool {
	n := 0
	for _, c := range p.Cells {
		if c.Setup.Name != setup {
			continue
		}
		if !ownClusters(c.Work) {
			return false
		}
		n++
	}
	return n > 0
}
