// Package table writes text tables in the boxed style of
// `etcdctl -w table`, which SREs already read and grep.
package table

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Write renders headers and rows to w. Rows shorter than headers are padded.
func Write(w io.Writer, headers []string, rows [][]string) error {
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
		b.WriteByte('|')
		for i, n := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			fmt.Fprintf(&b, " %s%s |", c, strings.Repeat(" ", n-utf8.RuneCountInString(c)))
		}
		b.WriteByte('\n')
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
