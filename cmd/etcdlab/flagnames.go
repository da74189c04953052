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
		if c.Annotations[benchLine] != "" { // its errors are about a bench command line it was given
			return "--" + name
		}
		if c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
			return "--" + name
		}
		return ""
	}
}

// benchLine annotates commands that take a bench command line as
// arguments (agent, agent manifests): library errors name that line's
// flags, which the command itself does not have.
const benchLine = "bench-line"
