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

// DoctorText writes a diagnosis: the diagnosis first (findings, the
// best-explained first, each with its evidence and fix), then the members,
// then each step's checks and what it could not see. Unless o.Wide, every
// line stays within TermWidth columns.
func DoctorText(w io.Writer, doc *result.Document, o TerminalOptions) error {
	d := doc.Doctor
	if d == nil {
		return fmt.Errorf("not a doctor result (kind %q)", doc.Kind)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Diagnosis (%s):\n", doc.Overall)
	if len(d.Findings) == 0 {
		b.WriteString("  nothing wrong found in what could be seen\n")
	}
	for _, f := range d.Findings {
		who := ""
		if f.Member != "" {
			who = " on " + f.Member
		}
		o.prose(&b, fmt.Sprintf("%d. %s %s%s: ", f.Rank, f.Status, f.Cause, who), f.Summary, "     ")
		for _, e := range f.Evidence {
			o.prose(&b, "     - ", e, "       ")
		}
		o.prose(&b, "     fix: ", f.Fix, "       ")
		src := f.Source
		if len(f.Versions) > 0 {
			src += "; relied on etcd " + strings.Join(f.Versions, ", ")
		}
		o.prose(&b, "     source: ", src, "       ")
	}
	b.WriteString("\nMembers:\n")
	rows := make([][]string, 0, len(d.Members))
	for _, m := range d.Members {
		role := "follower"
		switch {
		case !m.Reachable:
			role = "unreachable"
		case m.IsLeader:
			role = "leader"
		case m.IsLearner:
			role = "learner"
		}
		rows = append(rows, []string{m.Name, hostOf(m.Endpoint), m.Version, role, dbCell(m), readCell(m.ReadSerial), readCell(m.ReadLinear), secondsOr(m.ConnectSeconds)})
	}
	_ = table.WriteWrapped(&b, []string{"MEMBER", "ENDPOINT", "VERSION", "ROLE", "DB (IN USE)", "SERIAL READ P50/MAX", "LINEAR READ P50/MAX", "CONNECT"}, rows, TermWidth)
	if k := d.Keyspace; k != nil {
		fmt.Fprintf(&b, "\nKeyspace at revision %d: %s keys, %s (keys and values):\n", k.Revision, humanize.Comma(k.Keys), humanize.IBytes(uint64(k.Bytes)))
		rows := [][]string{}
		for i, p := range k.Prefixes {
			if i == 15 {
				break
			}
			share := "-"
			if k.Bytes > 0 {
				share = fmt.Sprintf("%.1f%%", 100*float64(p.Bytes)/float64(k.Bytes))
			}
			rows = append(rows, []string{p.Prefix, humanize.Comma(p.Keys), humanize.IBytes(uint64(p.Bytes)), share})
		}
		_ = table.WriteWrapped(&b, []string{"PREFIX", "KEYS", "BYTES", "SHARE"}, rows, TermWidth)
	}
	for _, st := range d.Steps {
		if len(st.Checks) == 0 && len(st.Unseen) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\nStep %s:\n", st.Name)
		if len(st.Checks) > 0 {
			writeVerdicts(&b, st.Checks, o)
		}
		for _, u := range st.Unseen {
			o.prose(&b, "  not seen: ", u, "    ")
		}
	}
	for _, n := range doc.Notes {
		o.prose(&b, "note: ", n, "  ")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dbCell(m result.DoctorMember) string {
	if m.DBSize == 0 {
		return "-"
	}
	return humanize.IBytes(uint64(m.DBSize)) + " (" + humanize.IBytes(uint64(m.DBInUse)) + ")"
}

func readCell(f *result.ReadFigure) string {
	if f == nil || f.Samples == 0 {
		return "-"
	}
	s := units.Seconds(f.P50) + " / " + units.Seconds(f.Max)
	if f.Errors > 0 {
		s += fmt.Sprintf(" (%d failed)", f.Errors)
	}
	return s
}

// hostOf is an endpoint without its scheme.
func hostOf(ep string) string {
	if _, rest, ok := strings.Cut(ep, "://"); ok {
		return rest
	}
	return ep
}

func secondsOr(s float64) string {
	if s <= 0 {
		return "-"
	}
	return units.Seconds(s)
}
