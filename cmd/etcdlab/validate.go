package main

import (
	"os"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Validation before I/O: every command checks all of its flags and files
// before it dials, starts or writes anything, and prints progress only
// after that. The checks here are the ones every command shares; each
// command's own are at the top of its RunE, and the libraries' in their
// options' validation. Every error is an *invalid.Error, which run prints
// as one line with exit code 2.

// nonNegativeDurations rejects a negative value for any duration flag c was
// given: no duration etcdlab takes means anything below zero. It is the
// root's PersistentPreRunE, so it runs for every command before its RunE.
func nonNegativeDurations(c *cobra.Command, _ []string) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || f.Value.Type() != "duration" {
			return
		}
		if d, perr := time.ParseDuration(f.Value.String()); perr == nil && d < 0 {
			err = invalid.Errorf("--%s must not be negative, not %s", f.Name, d)
		}
	})
	return err
}

// positiveIfGiven rejects zero or a negative value for each named flag that
// c was given: flags whose zero value means "the default" in the options
// they fill, where a zero typed on the command line is a mistake, not a
// request for the default.
func positiveIfGiven(c *cobra.Command, names ...string) error {
	for _, name := range names {
		f := c.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		v := f.Value.String()
		if d, err := time.ParseDuration(v); err == nil && f.Value.Type() == "duration" {
			if d <= 0 {
				return invalid.Errorf("--%s must be positive, not %s", name, d)
			}
			continue
		}
		if v == "0" || (len(v) > 0 && v[0] == '-') {
			return invalid.Errorf("--%s must be at least 1, not %s", name, v)
		}
	}
	return nil
}

// validateConn checks a cluster's connection options without dialling: a
// dial timeout that is not negative (0 is the default, 2 s), the
// certificate and key given together, and every TLS file readable and
// parsable. A file that is missing or not PEM is the command line's
// mistake, not the cluster's.
func validateConn(conn etcdclient.Config) error {
	if conn.DialTimeout < 0 {
		return invalid.Errorf("{DialTimeout} must not be negative, not %s", conn.DialTimeout)
	}
	if (conn.Cert == "") != (conn.Key == "") {
		return invalid.Errorf("{Cert} and {Key} must be given together")
	}
	for _, f := range []struct{ flag, path string }{{"--cacert", conn.CACert}, {"--cert", conn.Cert}, {"--key", conn.Key}} {
		if f.path == "" {
			continue
		}
		if _, err := os.ReadFile(f.path); err != nil {
			return invalid.Errorf("%s: %s", f.flag, err.Error())
		}
	}
	if _, err := conn.TLS(); err != nil {
		if invalid.Is(err) {
			return err
		}
		return invalid.Errorf("%s", err.Error())
	}
	return nil
}
