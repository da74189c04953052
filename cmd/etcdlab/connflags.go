package main

import (
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/spf13/pflag"
)

// addConnFlags registers the connection flags etcdctl and etcd benchmark
// share, with their names and defaults.
func addConnFlags(fl *pflag.FlagSet, c *etcdclient.Config) { etcdclient.AddFlags(fl, c) }
