package main

import (
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/spf13/pflag"
)

// addConnFlags registers the connection flags etcdctl and etcd benchmark
// share, with their names and defaults.
func addConnFlags(fl *pflag.FlagSet, c *etcdclient.Config) {
	fl.StringSliceVar(&c.Endpoints, "endpoints", nil, "comma-separated client URLs of a cluster")
	fl.StringVar(&c.CACert, "cacert", "", "verify servers with this CA bundle")
	fl.StringVar(&c.Cert, "cert", "", "client certificate file")
	fl.StringVar(&c.Key, "key", "", "client key file")
	fl.BoolVar(&c.InsecureSkipVerify, "insecure-skip-tls-verify", false, "skip server certificate verification")
	fl.StringVar(&c.User, "user", "", "username[:password] for authentication (never printed)")
	fl.DurationVar(&c.DialTimeout, "dial-timeout", etcdclient.DefaultDialTimeout, "dial timeout for client connections")
}
