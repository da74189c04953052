package etcdclient

import "github.com/spf13/pflag"

// AddFlags registers the connection flags etcdctl and etcd benchmark share
// on fl, with their names and defaults (except --dial-timeout: 2s, not
// etcd benchmark's 0, so that a stuck cluster gives an error, not a hang),
// bound to c.
func AddFlags(fl *pflag.FlagSet, c *Config) {
	fl.StringSliceVar(&c.Endpoints, "endpoints", nil, "comma-separated client URLs of a cluster")
	fl.StringVar(&c.CACert, "cacert", "", "verify servers with this CA bundle")
	fl.StringVar(&c.Cert, "cert", "", "client certificate file")
	fl.StringVar(&c.Key, "key", "", "client key file")
	fl.BoolVar(&c.InsecureSkipVerify, "insecure-skip-tls-verify", false, "skip server certificate verification")
	fl.StringVar(&c.User, "user", "", "username[:password] for authentication (never printed)")
	fl.DurationVar(&c.DialTimeout, "dial-timeout", DefaultDialTimeout, "dial timeout for client connections")
}

// FlagNames are the flags AddFlags registers.
func FlagNames() []string {
	return []string{"endpoints", "cacert", "cert", "key", "insecure-skip-tls-verify", "user", "dial-timeout"}
}
