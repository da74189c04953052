package main

import (
	"strings"
	"unicode"

	"github.com/spf13/cobra"
)

// flagNamer returns how command c spells the option a library error names
// by its Go field name (see package invalid): an annotation
// "param:Field" on c or a parent overrides; otherwise the field in
// kebab case ("KeySpaceSize" → "--key-space-size") if c has that flag; "" (the
// field name stays) when c has no such flag.
func flagNamer(c *cobra.Command) func(field string) string {
	return func(field string) string {
		for p := c; p != nil; p = p.Parent() {
			if f, ok := p.Annotations["param:"+field]; ok {
				return f
			}
		}
		name := kebab(field)
		if c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
			return "--" + name
		}
		return ""
	}
}

// kebab turns a Go identifier into a flag name: "RWRatio" → "rw-ratio".
func kebab(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}
