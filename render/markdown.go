package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// Markdown writes the report's tables as GitHub-flavoured Markdown, for
// pasting into issues and pull requests; j is what judge worked out for
// it.
func Markdown(w io.Writer, docs []result.Named, j Judged) error {
	var b strings.Builder
	for _, d := range docs {
		if d.Doc.Kind == result.KindSize && d.Doc.Size != nil {
			fmt.Fprintf(&b, "## size result: %s\n\n", d.Name)
			sizeMarkdownBody(&b, sizeModel(d.Doc.Size))
			continue
		}
		v, err := view(d, "", j)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		fmt.Fprintf(&b, "## %s result: %s\n\n", v.Kind, v.Name)
		mdTable(&b, Table{Header: []string{"", ""}, Rows: pairs(v.Env)})
		if len(v.Verdicts) > 0 {
			fmt.Fprintf(&b, "**Verdict: %s**\n\n", v.Overall)
			t := Table{Header: []string{"verdict", "measured", "value", "threshold", "source"}}
			for _, x := range v.Verdicts {
				t.Rows = append(t.Rows, []string{x.Status, x.What, x.Display, x.Threshold, x.Source})
			}
			mdTable(&b, t)
			for _, x := range v.Verdicts {
				if x.Explanation != "" {
					fmt.Fprintf(&b, "- %s: %s\n", x.Status, x.Explanation)
				}
			}
			if hasExplanation(v.Verdicts) {
				b.WriteString("\n")
			}
		}
		if len(v.Bottlenecks) > 0 {
			b.WriteString("### Bottlenecks\n\n")
			for _, s := range v.Bottlenecks {
				fmt.Fprintf(&b, "- **%s** (%s): %s\n", s.Title, s.Resource, s.Text)
			}
			b.WriteString("\n")
		}
		for _, t := range v.Tables {
			fmt.Fprintf(&b, "### %s\n\n", t.Title)
			mdTable(&b, t.Table)
		}
		if d.Doc.Kind == result.KindDisk && len(d.Doc.Disk.Jobs) > 0 && d.Doc.Disk.Jobs[0].SyncLatency != nil {
			j := d.Doc.Disk.Jobs[0]
			b.WriteString("### " + j.Sync + " percentiles\n\n")
			t := Table{Header: []string{"percentile", "latency"}}
			for _, p := range j.SyncLatency.Percentiles {
				t.Rows = append(t.Rows, []string{fmt.Sprintf("p%g", p.P), units.Seconds(p.Seconds)})
			}
			mdTable(&b, t)
		}
		for _, n := range append(v.Warnings, v.Notes...) {
			fmt.Fprintf(&b, "- %s\n", n)
		}
		if len(v.Warnings)+len(v.Notes) > 0 {
			b.WriteString("\n")
		}
	}
	if len(docs) > 1 {
		if cs, err := compare.Compare(docs[0], docs[1:]...); err == nil {
			b.WriteString(CompareMarkdown(cs))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func hasExplanation(vs []result.Verdict) bool {
	for _, v := range vs {
		if v.Explanation != "" {
			return true
		}
	}
	return false
}

func pairs(p [][2]string) [][]string {
	out := make([][]string, len(p))
	for i, kv := range p {
		out[i] = []string{"**" + kv[0] + "**", kv[1]}
	}
	return out
}

func mdTable(b *strings.Builder, t Table) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for range t.Header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for i := range t.Header {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// compareTable is the rows of one comparison.
func compareTable(c compare.Comparison) Table {
	t := Table{Header: []string{"point", "metric", c.Base, c.Other, "change", "", "beyond spread"}}
	for _, r := range c.Rows {
		t.Rows = append(t.Rows, []string{r.Point, r.Metric, num(r.Unit, r.Base), num(r.Unit, r.Other), fmt.Sprintf("%+.1f%%", r.ChangePct), betterWord(r.Better), sigWord(r.Significant)})
	}
	return t
}

// CompareMarkdown renders comparisons as Markdown tables.
func CompareMarkdown(cs []compare.Comparison) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "## %s against %s\n\n", c.Other, c.Base)
		mdTable(&b, compareTable(c))
		for _, u := range c.Unmatched {
			fmt.Fprintf(&b, "- not compared: %s\n", u)
		}
		if len(c.Unmatched) > 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// CompareText renders comparisons as text tables.
func CompareText(w io.Writer, cs []compare.Comparison) error {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s against %s (%s):\n", c.Other, c.Base, c.Kind)
		t := compareTable(c)
		writeTable(&b, t)
		for _, u := range c.Unmatched {
			fmt.Fprintf(&b, "not compared: %s\n", u)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
