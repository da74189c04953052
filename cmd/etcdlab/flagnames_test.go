package main

import (
	"testing"

	"github.com/spf13/cobra"
)

func TestFlagNamer(t *testing.T) {
	t.Parallel()
	root := &cobra.Command{Use: "root", Annotations: map[string]string{"param:PrevKV": "--prevkv"}}
	root.PersistentFlags().Int("clients", 1, "")
	sub := &cobra.Command{Use: "sub", Run: func(*cobra.Command, []string) {}}
	sub.Flags().Int("key-size", 8, "")
	root.AddCommand(sub)
	name := flagNamer(sub)
	for field, want := range map[string]string{"KeySize": "--key-size", "Clients": "--clients", "PrevKV": "--prevkv", "Nothing": ""} {
		if got := name(field); got != want {
			t.Errorf("%s: %q, want %q", field, got, want)
		}
	}
}
