package main

import (
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/cobra"
)

// validate checks bench subcommand c's whole command line (args are its
// positional arguments, cl what they ask for) before anything is dialled,
// started or written: the flags only the command line shows
// (bench.Flags.Validate), the configuration as bench.Run checks it, and
// the connection's options and files. It runs nothing.
func (b *benchCommand) validate(c *cobra.Command, args []string, cl bench.CommandLine) error {
	if err := b.flags.Validate(c.Name(), args, c.Flags().Changed); err != nil {
		return err
	}
	cfg := cl.Config
	if cfg.Agent.Count > 1 || (cfg.LoadCPUs > 0 && len(cfg.Conn.Endpoints) == 0) {
		// agents.PrepareLocal runs this line: it starts the local cluster
		// that gives the endpoints, and chooses the prefix, before its
		// own validation. Stand-ins check everything else now.
		if len(cfg.Conn.Endpoints) == 0 {
			cfg.Conn.Endpoints = []string{"127.0.0.1:2379"}
		}
		if cfg.Prefix == "" {
			cfg.Prefix = "/etcdlab/bench/validate/"
		}
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	return validateConn(cl.Config.Conn)
}
