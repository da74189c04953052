package table

import (
	"strings"
	"unicode/utf8"
)

// shrink narrows column widths until they sum to at most budget: the
// widest column first, down to its longest word, then down to its header.
func shrink(widths []int, headers []string, rows [][]string, budget int) {
	words := make([]int, len(widths)) // the longest word of each column
	heads := make([]int, len(widths))
	for i, h := range headers {
		heads[i] = utf8.RuneCountInString(h)
		words[i] = heads[i]
		for _, r := range rows {
			if i < len(r) {
				for _, f := range strings.Fields(r[i]) {
					words[i] = max(words[i], utf8.RuneCountInString(f))
				}
			}
		}
	}
	total := 0
	for _, n := range widths {
		total += n
	}
	for _, floor := range [][]int{words, heads} {
		for total > budget {
			widest := -1
			for i, n := range widths {
				if n > floor[i] && (widest < 0 || n > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				break
			}
			widths[widest]--
			total--
		}
	}
}

// Wrap breaks s into lines of at most width runes at spaces; a word longer
// than width is broken into pieces of width runes. Runs of spaces between
// words become one. A width below 1 returns s as it is.
func Wrap(s string, width int) []string {
	if width < 1 {
		return []string{s}
	}
	var out []string
	cur, n := "", 0
	for _, word := range strings.Fields(s) {
		for utf8.RuneCountInString(word) > width {
			if n > 0 {
				out = append(out, cur)
				cur, n = "", 0
			}
			r := []rune(word)
			out = append(out, string(r[:width]))
			word = string(r[width:])
		}
		wn := utf8.RuneCountInString(word)
		switch {
		case n == 0:
			cur, n = word, wn
		case n+1+wn <= width:
			cur, n = cur+" "+word, n+1+wn
		default:
			out = append(out, cur)
			cur, n = word, wn
		}
	}
	if n > 0 || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}
