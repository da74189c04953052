package job

import (
	"fmt"
	"os"
	"strings"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// LocalConn is Target.Conn for a local cluster: its client config with
// etcd benchmark's dial timeout.
func LocalConn(c *cluster.Cluster) etcdclient.Config {
	conn := c.Client()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	return conn
}

// Live is a live cluster as an experiment's setup reaches it (its file
// paths resolved): Conn makes Target.Conn of it.
type Live struct {
	Setup              string // the setup's name, for errors
	Endpoints          []string
	CACert, Cert, Key  string
	InsecureSkipVerify bool
	User, PasswordFile string
}

// Conn is how to reach the cluster; the password is read from its file
// now, so that it is in no file etcdlab writes.
func (l Live) Conn() (etcdclient.Config, error) {
	c := etcdclient.Config{
		Endpoints: l.Endpoints, CACert: l.CACert, Cert: l.Cert, Key: l.Key,
		InsecureSkipVerify: l.InsecureSkipVerify, User: l.User, DialTimeout: etcdclient.DefaultDialTimeout,
	}
	if l.PasswordFile != "" {
		b, err := os.ReadFile(l.PasswordFile)
		if err != nil {
			return c, fmt.Errorf("setup %s: password_file: %w", l.Setup, err)
		}
		c.User = l.User + ":" + strings.TrimRight(string(b), "\r\n")
	}
	return c, nil
}
