// Package table writes text tables in the boxed style of
// `etcdctl -w table`, which SREs already read and grep. Its functions are
// pure and safe for concurrent use.
package table

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Write renders headers and rows to w. Rows shorter than headers are padded.
// Cells are never wrapped: a line is as wide as its widest cells.
func Write(w io.Writer, headers []string, rows [][]string) error {
	return WriteWrapped(w, headers, rows, 0)
}

// WriteWrapped renders like Write, but keeps every line within width
// columns (counted in runes) when it can: cells too wide for their column
// continue on the next lines of the same row, wrapped at spaces, so nothing
// is cut. Columns keep their natural width when the table fits; otherwise
// the widest column gives way first, down to its longest word, then (only
// if that is not enough) down to its header, breaking words. Headers are
// never wrapped, so a table whose headers alone are wider than width stays
// wider. A width of 0 or less means no limit (Write).
func WriteWrapped(w io.Writer, headers []string, rows [][]string, width int) error {
	widths := make([]int, len(headers))
	for i, h := range headers {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, r := range rows {
		for i := range headers {
			if i < len(r) && utf8.RuneCountInString(r[i]) > widths[i] {
				widths[i] = utf8.RuneCountInString(r[i])
			}
		}
	}
	if width > 0 {
		shrink(widths, headers, rows, width-(3*len(headers)+1))
	}
	var b strings.Builder
	sep := func() {
		b.WriteByte('+')
		for _, n := range widths {
			b.WriteString(strings.Repeat("-", n+2))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	line := func(cells []string) {
		wrapped := make([][]string, len(widths))
		height := 1
		for i, n := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			wrapped[i] = []string{c}
			if utf8.RuneCountInString(c) > n {
				wrapped[i] = Wrap(c, n)
			}
			height = max(height, len(wrapped[i]))
		}
		for l := range height {
			b.WriteByte('|')
			for i, n := range widths {
				c := ""
				if l < len(wrapped[i]) {
					c = wrapped[i][l]
				}
				fmt.Fprintf(&b, " %s%s |", c, strings.Repeat(" ", n-utf8.RuneCountInString(c)))
			}
			b.WriteByte('\n')
		}
	}
	sep()
	line(headers)
	sep()
	for _, r := range rows {
		line(r)
	}
	sep()
	_, err := io.WriteString(w, b.String())
	return err
}
