package main

import (
	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/spf13/cobra"
)

// memberCmd is the hidden command each member of a local cluster runs as: a
// child process of `etcdlab cluster up`, so that one member can be killed,
// paused or slowed on its own.
func (a *app) memberCmd() *cobra.Command {
	var config string
	c := &cobra.Command{
		Use:    "member --config FILE",
		Short:  "Run one etcd member of a local cluster (used by etcdlab itself)",
		Hidden: true,
		Args:   noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if config == "" {
				return exitcode.Usagef("member needs --config")
			}
			teardown, stop := member.NotifyTeardown()
			defer stop()
			return member.Run(c.Context(), config, teardown)
		},
	}
	c.Flags().StringVar(&config, "config", "", "etcd configuration file written by etcdlab cluster up")
	return c
}
