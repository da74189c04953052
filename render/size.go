package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// sizeSection is one part of a size answer, drawn alike as text, Markdown
// and HTML: a title, lines of prose, and a table.
type sizeSection struct {
	Title string
	Lines []string
	Table *Table
	// Detail sections (each candidate's probes) are left out of the text,
	// and out of the HTML, whose charts carry the same numbers.
	Detail bool
}

// sizeAnswer is a size result as the renderers draw it: the headline (the
// choice), then its sections in the order an SRE reads them.
type sizeAnswer struct {
	Headline string
	Sections []sizeSection
}

// SizeText writes `etcdlab size`'s answer as text: the choice first, then
// the target and the load it implies, the candidates (holds, knee, what
// broke first and why, headroom, database), the round-trip budget beside
// OpenShift's rule, the published sizing, the method, the SLOs and the
// notes. Lines stay within TermWidth columns.
func SizeText(w io.Writer, s *result.Size) error {
	if s == nil {
		return fmt.Errorf("not a size result: no answer in it")
	}
	a := sizeModel(s)
	o := TerminalOptions{}
	var b strings.Builder
	o.prose(&b, "", a.Headline, "  ")
	for _, sec := range a.Sections {
		if sec.Detail {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n", sec.Title)
		for _, l := range sec.Lines {
			o.prose(&b, "  ", l, "    ")
		}
		if sec.Table != nil {
			o.table(&b, upper(sec.Table.Header), sec.Table.Rows)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SizeMarkdown writes the same answer as SizeText as GitHub-flavoured
// Markdown, with each candidate's probes as tables besides.
func SizeMarkdown(w io.Writer, s *result.Size) error {
	if s == nil {
		return fmt.Errorf("not a size result: no answer in it")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## etcdlab size: %s\n\n", sizeTargetPhrase(s.Target))
	sizeMarkdownBody(&b, sizeModel(s))
	_, err := io.WriteString(w, b.String())
	return err
}

func sizeMarkdownBody(b *strings.Builder, a sizeAnswer) {
	fmt.Fprintf(b, "**%s**\n\n", mdEscape(a.Headline))
	for _, sec := range a.Sections {
		fmt.Fprintf(b, "### %s\n\n", sec.Title)
		for _, l := range sec.Lines {
			fmt.Fprintf(b, "- %s\n", mdEscape(l))
		}
		if len(sec.Lines) > 0 {
			b.WriteString("\n")
		}
		if sec.Table != nil {
			mdTable(b, *sec.Table)
		}
	}
}

// mdEscape keeps prose from being read as Markdown emphasis.
func mdEscape(s string) string {
	return strings.NewReplacer("*", `\*`, "_", `\_`).Replace(s)
}

// sizeModel turns a size result into its headline and sections.
func sizeModel(s *result.Size) sizeAnswer {
	a := sizeAnswer{Headline: sizeHeadline(s)}
	a.Sections = append(a.Sections, sizeTargetSection(s.Target), sizeLoadSection(s.Load))
	a.Sections = append(a.Sections, sizeCandidatesSection(s))
	if why := sizeWhyLines(s); len(why) > 0 {
		a.Sections = append(a.Sections, sizeSection{Title: "Why", Lines: why})
	}
	a.Sections = append(a.Sections, sizeRTTSection(s.RTT))
	if len(s.Guide) > 0 {
		a.Sections = append(a.Sections, sizeGuideSection(s))
	}
	a.Sections = append(a.Sections, sizeMethodSection(s))
	if len(s.SLOs) > 0 {
		t := &Table{Header: []string{"SLO", "limit", "source"}}
		for _, o := range s.SLOs {
			t.Rows = append(t.Rows, []string{o.Name, sizeLimit(o), o.Source})
		}
		a.Sections = append(a.Sections, sizeSection{Title: "SLOs every probe was judged by", Table: t})
	}
	if len(s.Notes) > 0 {
		a.Sections = append(a.Sections, sizeSection{Title: "Notes", Lines: s.Notes})
	}
	for _, c := range s.Candidates {
		if len(c.Probes) > 0 {
			a.Sections = append(a.Sections, sizeSection{Title: "Probes of " + c.Name, Table: sizeProbeTable(c.Probes, false), Detail: true})
		}
	}
	if s.RTT != nil && len(s.RTT.Probes) > 0 {
		a.Sections = append(a.Sections, sizeSection{Title: "Round-trip probes on " + s.RTT.Candidate, Table: sizeProbeTable(s.RTT.Probes, true), Detail: true})
	}
	return a
}

// sizeTargetPhrase names what was planned for: "1,000 nodes / 30,000
// pods", or the profile and its scale.
func sizeTargetPhrase(t result.SizeTarget) string {
	if t.Profile != "" {
		p := "the profile " + t.Profile
		if t.Scale != 0 && t.Scale != 1 {
			p += fmt.Sprintf(" at scale %g", t.Scale)
		}
		return p
	}
	if t.Nodes == 0 && t.Pods == 0 {
		return "the target"
	}
	return humanize.Comma(int64(t.Nodes)) + " nodes / " + humanize.Comma(int64(t.Pods)) + " pods"
}

func sizeHeadline(s *result.Size) string {
	target := sizeTargetPhrase(s.Target)
	if s.Choice != "" {
		h := "Smallest candidate that holds " + target + " with headroom: " + s.Choice
		if c := sizeCandidate(s, s.Choice); c != nil {
			h += " (" + sizeShape(*c) + ", " + sizeDisk(c.Disk) + ")"
		}
		return h
	}
	why := s.ChoiceWhy
	if why == "" {
		why = fmt.Sprintf("none of the %d candidates held every SLO at the target with its busiest member's CPU at or below 60%% of its budget", len(s.Candidates))
	}
	return "None holds " + target + " with headroom: " + why
}

func sizeCandidate(s *result.Size, name string) *result.SizeCandidate {
	for i := range s.Candidates {
		if s.Candidates[i].Name == name {
			return &s.Candidates[i]
		}
	}
	return nil
}

// sizeShape is "3 × 4 cores".
func sizeShape(c result.SizeCandidate) string {
	return fmt.Sprintf("%d × %s", c.Members, cores(c.CPUs))
}

// sizeDisk names a candidate's disk class: "this disk", "disk fit:hdd".
func sizeDisk(d string) string {
	if strings.Contains(d, "disk") {
		return d
	}
	return "disk " + d
}

// cores is a number of cores in words ("1 core", "0.5 cores").
func cores(v float64) string {
	if v == 1 {
		return "1 core"
	}
	return fmt.Sprintf("%.3g cores", v)
}

func sizeTargetSection(t result.SizeTarget) sizeSection {
	sec := sizeSection{Title: "Target"}
	var parts []string
	count := func(n int, what string) {
		if n > 0 {
			parts = append(parts, humanize.Comma(int64(n))+" "+what)
		}
	}
	if t.Profile != "" {
		parts = append(parts, sizeTargetPhrase(t))
	}
	count(t.Nodes, "nodes")
	count(t.Pods, "pods")
	count(t.Namespaces, "namespaces")
	count(t.Services, "services")
	count(t.Deployments, "deployments")
	line := strings.Join(parts, ", ")
	if t.Churn > 0 {
		line += fmt.Sprintf("; churn %s pods/s created and as many deleted", rateFig(t.Churn))
	}
	if t.APIServers > 0 {
		line += fmt.Sprintf("; %d apiservers", t.APIServers)
		if t.Watchers > 0 {
			line += fmt.Sprintf(" with %s client watches each", humanize.Comma(int64(t.Watchers)))
		}
	}
	sec.Lines = append(sec.Lines, line+".")
	if len(t.ObjectBytes) > 0 {
		kinds := make([]string, 0, len(t.ObjectBytes))
		for k := range t.ObjectBytes {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var sizes []string
		for _, k := range kinds {
			sizes = append(sizes, k+" "+humanize.Bytes(uint64(max(0, t.ObjectBytes[k]))))
		}
		sec.Lines = append(sec.Lines, "Stored object sizes: "+strings.Join(sizes, ", ")+".")
	}
	for _, src := range t.Sources {
		sec.Lines = append(sec.Lines, "Source: "+src)
	}
	return sec
}

func sizeLoadSection(l result.SizeLoad) sizeSection {
	sec := sizeSection{Title: "Load the target implies"}
	line := fmt.Sprintf("%s writes/s, %s reads/s; etcd sends %s watch events/s to %s watches; %s keys",
		rateFig(l.WritesPerSecond), rateFig(l.ReadsPerSecond), rateFig(l.WatchEventsPerSecond), humanize.Comma(int64(l.Watches)), humanize.Comma(l.Keys))
	if l.Model != "" {
		line += "; model: " + l.Model
	}
	sec.Lines = append(sec.Lines, line+".")
	db := "Database projected at " + humanize.IBytes(uint64(max(0, l.DBBytes)))
	if l.QuotaBytes > 0 {
		share := float64(l.DBBytes) / float64(l.QuotaBytes)
		db += fmt.Sprintf(", %s of the %s quota (the SLO: below 80%%", pct(share), humanize.IBytes(uint64(l.QuotaBytes)))
		if share >= 0.8 {
			db += "; ABOVE it"
		}
		db += ")"
	}
	if l.DBMethod != "" {
		db += "; method: " + l.DBMethod
	}
	sec.Lines = append(sec.Lines, db+".")
	if len(l.Rates) > 0 {
		t := &Table{Header: []string{"verb", "resource", "per second", "source"}}
		for _, r := range l.Rates {
			t.Rows = append(t.Rows, []string{r.Verb, orDash(r.Resource), rateFig(r.PerSecond), r.Source})
		}
		sec.Table = t
	}
	return sec
}

func sizeCandidatesSection(s *result.Size) sizeSection {
	versions := slices.ContainsFunc(s.Candidates, func(c result.SizeCandidate) bool { return c.Version != "" })
	head := []string{"candidate", "shape", "disk", "RTT"}
	if versions {
		head = append(head, "etcd")
	}
	head = append(head, "holds", "knee", "broke first", "CPU", "DB/quota", "lab run")
	t := &Table{Header: head}
	for _, c := range s.Candidates {
		row := []string{c.Name, sizeShape(c), c.Disk, msOr(c.RTTMs, "-")}
		if versions {
			row = append(row, orDash(c.Version))
		}
		if c.Error != "" {
			row = append(row, "not measured", "-", "-", "-", "-", "-")
			t.Rows = append(t.Rows, row)
			continue
		}
		row = append(row, sizeHolds(c), sizeKnee(c, s.Target), orDash(c.BrokeFirst), sizeHeadroom(c), sizeDB(c), sizeLab(c))
		t.Rows = append(t.Rows, row)
	}
	sec := sizeSection{Title: "Candidates", Table: t}
	if len(s.Candidates) == 0 {
		sec.Lines = []string{"no candidate was measured"}
		sec.Table = nil
		return sec
	}
	sec.Lines = []string{"holds: every SLO held at the target; knee: the largest size at which every SLO held (≥, ≤: the search did not bracket it); " +
		"CPU: the busiest member's at the target, projected to the candidate's cores (OpenShift: at most 60%); DB/quota: the database projected at the target, " +
		"as a share of the quota (at most 80%); lab run: the scale the lab ran the candidate at, and each member's CPU there."}
	return sec
}

// sizeHolds says whether a candidate held at the target; a target probe
// that could not judge the cluster is no hold.
func sizeHolds(c result.SizeCandidate) string {
	if c.Holds {
		return "yes"
	}
	if p := sizeTargetProbe(c.Probes); p != nil && p.Inconclusive != "" {
		return "unknown"
	}
	return "NO"
}

// sizeTargetProbe is the probe at the target (multiplier 1), or nil.
func sizeTargetProbe(ps []result.SizeProbe) *result.SizeProbe {
	for i := range ps {
		if math.Abs(ps[i].Multiplier-1) < 1e-9 {
			return &ps[i]
		}
	}
	return nil
}

// sizeKnee is the knee in nodes (or as a multiplier of a profile's
// target), as a bound when the search did not bracket it.
func sizeKnee(c result.SizeCandidate, t result.SizeTarget) string {
	nodes, mult := c.KneeNodes, c.Knee
	if c.Below && nodes == 0 && mult == 0 {
		if p := sizeFirstProbe(c.Probes); p != nil {
			nodes, mult = p.Nodes, p.Multiplier
		}
	}
	if nodes == 0 && mult == 0 {
		return "-"
	}
	v := fmt.Sprintf("×%.3g", mult)
	if nodes > 0 {
		v = humanize.Comma(int64(nodes)) + " nodes"
		if t.Profile != "" || t.Nodes == 0 {
			v += fmt.Sprintf(" (×%.3g)", mult)
		}
	}
	switch {
	case c.Above:
		return "≥ " + v
	case c.Below:
		return "≤ " + v
	}
	return v
}

// sizeFirstProbe is the probe at the smallest multiplier.
func sizeFirstProbe(ps []result.SizeProbe) *result.SizeProbe {
	var first *result.SizeProbe
	for i := range ps {
		if first == nil || ps[i].Multiplier < first.Multiplier {
			first = &ps[i]
		}
	}
	return first
}

// sizeFirstBreak is the probe at the smallest multiplier that broke (an
// inconclusive or failed probe did not).
func sizeFirstBreak(ps []result.SizeProbe) *result.SizeProbe {
	var first *result.SizeProbe
	for i := range ps {
		p := &ps[i]
		if p.Holds || p.Inconclusive != "" || p.Error != "" {
			continue
		}
		if first == nil || p.Multiplier < first.Multiplier {
			first = p
		}
	}
	return first
}

func sizeHeadroom(c result.SizeCandidate) string {
	if c.Headroom == 0 && !c.HeadroomOK {
		return "-"
	}
	v := pct(c.Headroom)
	if !c.HeadroomOK {
		v += " > 60%"
	}
	return v
}

func sizeDB(c result.SizeCandidate) string {
	if c.DBBytes == 0 && c.DBShare == 0 {
		return "-"
	}
	v := humanize.IBytes(uint64(max(0, c.DBBytes))) + ", " + pct(c.DBShare)
	if c.DBShare >= 0.8 {
		v += " ≥ 80%"
	}
	return v
}

func sizeLab(c result.SizeCandidate) string {
	cpus := ""
	if c.LabCPUs > 0 {
		cpus = ", " + cores(c.LabCPUs) + " each"
	}
	if c.Scale == 1 {
		return "direct" + cpus
	}
	if c.Scale == 0 {
		return "-"
	}
	return fmt.Sprintf("scaled ×%.3g%s", c.Scale, cpus)
}

// sizeWhyLines are a line per candidate that broke (the SLO that broke
// first, where, and the bottleneck statement), could not be measured,
// held without headroom, or had probes that judged nothing.
func sizeWhyLines(s *result.Size) []string {
	var out []string
	for _, c := range s.Candidates {
		if c.Error != "" {
			out = append(out, c.Name+": not measured: "+c.Error)
			continue
		}
		if c.BrokeFirst != "" || !c.Holds {
			line := c.Name + ": "
			if c.Holds {
				line += "holds at the target; beyond its knee "
			}
			if c.BrokeFirst != "" {
				line += "broke first on " + c.BrokeFirst
			} else {
				line += "did not hold"
			}
			if p := sizeFirstBreak(c.Probes); p != nil {
				line += " at " + sizeProbeSize(*p, s.Target)
			}
			if c.Why != "" {
				line += ": " + c.Why
			}
			if !c.Holds {
				if p := sizeTargetProbe(c.Probes); p != nil && p.Inconclusive != "" {
					line += "; the probe at the target judged nothing: " + p.Inconclusive
				}
			}
			out = append(out, line)
		}
		if c.Holds && !c.HeadroomOK {
			out = append(out, fmt.Sprintf("%s: holds, but its busiest member's CPU at the target is %s of its budget, above OpenShift's 60%% (with one member of three lost, the others would carry its share)", c.Name, pct(c.Headroom)))
		}
		n := 0
		for _, p := range c.Probes {
			if p.Inconclusive != "" {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s: %d of %d probes were inconclusive (the load generator was the limit) and count as neither holding nor breaking", c.Name, n, len(c.Probes)))
		}
	}
	return out
}

// sizeProbeSize is where a probe ran: "2,000 nodes (×2)".
func sizeProbeSize(p result.SizeProbe, t result.SizeTarget) string {
	if p.Nodes > 0 {
		return fmt.Sprintf("%s nodes (×%.3g)", humanize.Comma(int64(p.Nodes)), p.Multiplier)
	}
	_ = t
	return fmt.Sprintf("×%.3g the target", p.Multiplier)
}

func sizeRTTSection(r *result.SizeRTT) sizeSection {
	sec := sizeSection{Title: "Round-trip budget"}
	if r == nil {
		sec.Lines = []string{"not searched."}
		return sec
	}
	var line string
	if r.Above {
		line = fmt.Sprintf("Measured on %s: every SLO held at every round trip probed, up to %s between members: the budget is at least that.", r.Candidate, msOr(r.BudgetMs, "0 ms"))
	} else {
		line = fmt.Sprintf("Measured on %s: every SLO held up to %s between members", r.Candidate, msOr(r.BudgetMs, "0 ms"))
		if r.BrokeMs > 0 {
			line += fmt.Sprintf("; at %s", msOr(r.BrokeMs, ""))
			if r.BrokeFirst != "" {
				line += " " + r.BrokeFirst + " broke first"
			} else {
				line += " an SLO broke"
			}
		}
		line += "."
	}
	sec.Lines = append(sec.Lines, line)
	if r.OpenShiftAvgMs > 0 || r.OpenShiftMaxMs > 0 {
		rule := fmt.Sprintf("OpenShift's rule: average round trip < %s, maximum < %s", msOr(r.OpenShiftAvgMs, "-"), msOr(r.OpenShiftMaxMs, "-"))
		if r.OpenShiftRule != "" {
			rule += " (" + r.OpenShiftRule + ")"
		}
		sec.Lines = append(sec.Lines, rule+".")
		switch {
		case r.OpenShiftMaxMs > 0 && r.BudgetMs >= r.OpenShiftMaxMs:
			sec.Lines = append(sec.Lines, "The measured budget reaches OpenShift's maximum: for this load the rule, not the SLOs, is the limit.")
		case !r.Above && r.OpenShiftAvgMs > 0 && r.BudgetMs < r.OpenShiftAvgMs:
			sec.Lines = append(sec.Lines, "The measured budget is below OpenShift's average: this load needs members closer than the rule allows.")
		case !r.Above && r.OpenShiftMaxMs > 0 && r.BudgetMs < r.OpenShiftMaxMs:
			sec.Lines = append(sec.Lines, "The measured budget lies between OpenShift's average and maximum.")
		}
	}
	return sec
}

func sizeGuideSection(s *result.Size) sizeSection {
	t := &Table{Header: []string{"source", "tier", "nodes", "cores", "memory", "IOPS", "where etcdlab differs", "reference"}}
	for _, g := range s.Guide {
		mem, iops := "-", "-"
		if g.MemoryGB > 0 {
			mem = fmt.Sprintf("%g GB", g.MemoryGB)
		}
		if g.IOPS > 0 {
			iops = humanize.Comma(int64(g.IOPS))
		}
		differs := g.Differs
		if differs == "" {
			differs = "agrees"
		}
		t.Rows = append(t.Rows, []string{g.Source, g.Tier, humanize.Comma(int64(g.Nodes)), fmt.Sprintf("%g", g.CPUs), mem, iops, differs, g.Ref})
	}
	title := "Published sizing"
	if s.Target.Nodes > 0 {
		title += " for " + humanize.Comma(int64(s.Target.Nodes)) + " nodes"
	}
	return sizeSection{Title: title, Table: t}
}

func sizeMethodSection(s *result.Size) sizeSection {
	sec := sizeSection{Title: "Method", Lines: append([]string(nil), s.Method...)}
	if s.Quick {
		sec.Lines = append(sec.Lines, "Quick search: shorter probes and a coarser bisection than the full one.")
	}
	var m []string
	if s.MachineCores > 0 {
		m = append(m, fmt.Sprintf("measured on a %d-core machine", s.MachineCores))
	}
	if s.LabCores > 0 {
		m = append(m, "the lab gave all members of one probe "+cores(s.LabCores)+" together")
	}
	if s.IdleMemberCores > 0 {
		m = append(m, fmt.Sprintf("an idle member uses %.3g cores here (not scaled)", s.IdleMemberCores))
	}
	if s.Seconds > 0 {
		m = append(m, "the search took "+time.Duration(s.Seconds*float64(time.Second)).Round(time.Second).String())
	}
	if len(m) > 0 {
		l := strings.Join(m, "; ") + "."
		sec.Lines = append(sec.Lines, strings.ToUpper(l[:1])+l[1:])
	}
	if len(sec.Lines) == 0 {
		sec.Lines = []string{"not stated."}
	}
	return sec
}

// sizeLimit is an SLO's limit in its unit.
func sizeLimit(o result.SizeSLO) string {
	switch o.Unit {
	case "s":
		return units.Seconds(o.Limit)
	case "ms":
		return units.Seconds(o.Limit / 1000)
	case "share":
		return pct(o.Limit)
	case "":
		return fmt.Sprintf("%g", o.Limit)
	}
	return fmt.Sprintf("%g %s", o.Limit, o.Unit)
}

// sizeProbeTable lists probes in the order of their size (or round trip):
// the verdict, what broke, and the figures judged.
func sizeProbeTable(ps []result.SizeProbe, rtt bool) *Table {
	head := []string{"multiplier", "nodes", "pods", "churn/s"}
	if rtt {
		head = []string{"RTT"}
	}
	head = append(head, "verdict", "broke (worst first)", "mutating p99", "WAL fsync p99", "commit p99", "leader changes", "slow applies", "req/s asked / done", "busiest member CPU", "database", "bottleneck")
	t := &Table{Header: head}
	for _, p := range sizeSorted(ps, rtt) {
		row := []string{fmt.Sprintf("×%.3g", p.Multiplier), humanize.Comma(int64(p.Nodes)), humanize.Comma(int64(p.Pods)), rateFig(p.Churn)}
		if rtt {
			row = []string{msOr(p.RTTMs, "0 ms")}
		}
		row = append(row, sizeVerdict(p), orDash(strings.Join(p.Broke, ", ")))
		if p.Error != "" || p.NotRun != "" {
			why := "error: " + p.Error
			if p.NotRun != "" {
				why = "not run: " + p.NotRun
			}
			row = append(row, "-", "-", "-", "-", "-", "-", "-", "-", why)
			t.Rows = append(t.Rows, row)
			continue
		}
		bn := p.Bottleneck
		if p.Inconclusive != "" {
			bn = strings.TrimPrefix(strings.Join([]string{bn, "inconclusive: " + p.Inconclusive}, "; "), "; ")
		}
		row = append(row, units.Seconds(p.MutatingP99), units.Seconds(p.WALFsyncP99), units.Seconds(p.CommitP99), fmt.Sprintf("%g", p.LeaderChanges), fmt.Sprintf("%g", p.SlowApplies),
			rateFig(p.RateWant)+" / "+rateFig(p.RateGot), fmt.Sprintf("%.2f cores (%s)", p.MemberCPU, pct(p.CPUShare)), humanize.IBytes(uint64(max(0, p.DBBytes))), orDash(bn))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// sizeVerdict is a probe's verdict: held, broke, inconclusive (neither)
// or failed.
func sizeVerdict(p result.SizeProbe) string {
	switch {
	case p.Error != "":
		return "failed"
	case p.Inconclusive != "":
		return "inconclusive"
	case p.Holds:
		return "held"
	}
	return "broke"
}

// sizeSorted is probes by multiplier, or by round trip.
func sizeSorted(ps []result.SizeProbe, rtt bool) []result.SizeProbe {
	out := slices.Clone(ps)
	sort.SliceStable(out, func(i, j int) bool {
		if rtt {
			return out[i].RTTMs < out[j].RTTMs
		}
		return out[i].Multiplier < out[j].Multiplier
	})
	return out
}

// rateFig is a rate or count: whole above 100, one decimal above 1, two
// significant digits below.
func rateFig(v float64) string {
	switch {
	case v >= 100:
		return humanize.Comma(int64(v + 0.5))
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	case v == 0:
		return "0"
	}
	return fmt.Sprintf("%.2g", v)
}

// pct is a share as a whole percentage (one decimal below 10%).
func pct(share float64) string {
	if share < 0.1 {
		return fmt.Sprintf("%.1f%%", 100*share)
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}

func msOr(v float64, zero string) string {
	if v == 0 {
		return zero
	}
	return fmt.Sprintf("%g ms", v)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
