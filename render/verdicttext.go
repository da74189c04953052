package render

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// TermWidth is the width, in columns, that text for a terminal keeps
// within unless TerminalOptions.Wide: an ordinary terminal's.
const TermWidth = 120

// TerminalOptions lay out text for a terminal.
type TerminalOptions struct {
	// Wide prints tables at their natural width with every source in its
	// row, and each explanation on one line (for wide terminals and
	// grep). Otherwise lines stay within TermWidth columns: long cells
	// wrap inside their column, sources become numbered notes below the
	// table, and prose wraps. Either way nothing is left out.
	Wide bool
}

// width is the line width to keep within; 0 for no limit.
func (o TerminalOptions) width() int {
	if o.Wide {
		return 0
	}
	return TermWidth
}

// prose writes text after first, wrapped at spaces within the width with
// indent before each further line; on one line when Wide.
func (o TerminalOptions) prose(b *strings.Builder, first, text, indent string) {
	w := o.width()
	if w == 0 {
		b.WriteString(first + text + "\n")
		return
	}
	line, n := first, utf8.RuneCountInString(first)
	fresh := true // nothing but the prefix on the line yet
	for _, word := range strings.Fields(text) {
		wn := utf8.RuneCountInString(word)
		if !fresh && n+1+wn > w {
			b.WriteString(line + "\n")
			line, n, fresh = indent, utf8.RuneCountInString(indent), true
		}
		if !fresh {
			line, n = line+" ", n+1
		}
		line, n, fresh = line+word, n+wn, false
	}
	b.WriteString(line + "\n")
}

// writeVerdicts renders verdicts as a table, then one explanation per WARN
// or FAIL. Within the width, each verdict's source is a numbered note
// below the table (sources repeat, and are the longest cells).
func writeVerdicts(b *strings.Builder, vs []result.Verdict, o TerminalOptions) {
	headers := []string{"VERDICT", "MEASURED", "VALUE", "THRESHOLD", "SOURCE"}
	rows := make([][]string, 0, len(vs))
	if o.Wide {
		for _, v := range vs {
			rows = append(rows, []string{v.Status, v.What, v.Display, v.Threshold, v.Source})
		}
		_ = table.Write(b, headers, rows)
	} else {
		var sources []string
		note := map[string]int{}
		for _, v := range vs {
			ref := "-"
			if v.Source != "" {
				if note[v.Source] == 0 {
					sources = append(sources, v.Source)
					note[v.Source] = len(sources)
				}
				ref = fmt.Sprintf("[%d]", note[v.Source])
			}
			rows = append(rows, []string{v.Status, v.What, v.Display, v.Threshold, ref})
		}
		_ = table.WriteWrapped(b, headers, rows, TermWidth)
		for i, s := range sources {
			o.prose(b, fmt.Sprintf("[%d] ", i+1), s, "    ")
		}
	}
	for _, v := range vs {
		if v.Explanation != "" {
			o.prose(b, v.Status+": ", v.Explanation, "  ")
		}
	}
}
