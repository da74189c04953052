package main

import (
	"github.com/etcdlab/etcdlab/invalid"
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
		name := invalid.Kebab(field)
		if c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
			return "--" + name
		}
		return ""
	}
}
