// Package etcdclient builds etcd v3 clients from the connection flags every
// etcdlab command shares (endpoints, TLS files, user). It keeps the client's
// own logging quiet and never lets a password reach output.
package etcdclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// DefaultDialTimeout is etcd benchmark's and etcdctl's default dial timeout.
const DefaultDialTimeout = 2 * time.Second

// Config says how to reach a cluster. It is a plain value; copy it freely.
type Config struct {
	Endpoints []string `json:"endpoints"`
	// CACert, Cert and Key are PEM file paths, as etcdctl's --cacert, --cert
	// and --key.
	CACert             string `json:"cacert,omitempty"`
	Cert               string `json:"cert,omitempty"`
	Key                string `json:"key,omitempty"`
	InsecureSkipVerify bool   `json:"insecure_skip_tls_verify,omitempty"`
	// User is "name" or "name:password" as etcdctl's --user. The password is
	// removed by Redacted and never serialised.
	User        string        `json:"-"`
	DialTimeout time.Duration `json:"dial_timeout"`
}

// Redacted returns the user name with any password replaced, for output.
func (c Config) Redacted() string {
	name, _, hasPw := strings.Cut(c.User, ":")
	if hasPw {
		return name + ":<redacted>"
	}
	return name
}

// UsesTLS reports whether the configuration asks for TLS.
func (c Config) UsesTLS() bool {
	if c.CACert != "" || c.Cert != "" || c.Key != "" || c.InsecureSkipVerify {
		return true
	}
	for _, ep := range c.Endpoints {
		if strings.HasPrefix(ep, "https://") {
			return true
		}
	}
	return false
}

// TLS returns the client TLS configuration, or nil for plaintext. A
// certificate without its key (or a key without its certificate) is an
// invalid-input error (package invalid).
func (c Config) TLS() (*tls.Config, error) {
	if !c.UsesTLS() {
		return nil, nil
	}
	if (c.Cert == "") != (c.Key == "") {
		return nil, invalid.Errorf("{Cert} and {Key} must be given together")
	}
	info := transport.TLSInfo{CertFile: c.Cert, KeyFile: c.Key, TrustedCAFile: c.CACert, InsecureSkipVerify: c.InsecureSkipVerify}
	if c.Cert == "" && c.CACert == "" {
		// TLSInfo.ClientConfig insists on a file; an empty tls.Config uses
		// the system roots.
		return &tls.Config{InsecureSkipVerify: c.InsecureSkipVerify, MinVersion: tls.VersionTLS12}, nil //nolint:gosec // user's explicit choice
	}
	cfg, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("TLS: %w", err)
	}
	return cfg, nil
}

// ClientV3 returns the clientv3 configuration.
func (c Config) ClientV3() (clientv3.Config, error) {
	if len(c.Endpoints) == 0 {
		return clientv3.Config{}, fmt.Errorf("no endpoints")
	}
	tlsCfg, err := c.TLS()
	if err != nil {
		return clientv3.Config{}, err
	}
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	cfg := clientv3.Config{
		Endpoints:            stripSchemes(c.Endpoints, tlsCfg != nil),
		DialTimeout:          timeout,
		DialKeepAliveTime:    10 * time.Second,
		DialKeepAliveTimeout: timeout,
		TLS:                  tlsCfg,
		Logger:               zap.NewNop(),
	}
	if c.User != "" {
		name, pw, _ := strings.Cut(c.User, ":")
		cfg.Username, cfg.Password = name, pw
	}
	return cfg, nil
}

// New connects a client. The connection is made lazily; the first request
// reports an unreachable cluster, so give every request a deadline.
func New(c Config) (*clientv3.Client, error) {
	cfg, err := c.ClientV3()
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", strings.Join(c.Endpoints, ","), Explain(err))
	}
	return cli, nil
}

// NewChecked connects and verifies, within the dial timeout, that at least
// one endpoint answers. It returns a one-line error naming the endpoints
// otherwise.
func NewChecked(ctx context.Context, c Config) (*clientv3.Client, error) {
	cli, err := New(c)
	if err != nil {
		return nil, err
	}
	timeout := c.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	var lastErr error
	for _, ep := range cli.Endpoints() {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		_, err := cli.Status(cctx, ep)
		cancel()
		if err == nil {
			return cli, nil
		}
		lastErr = err
	}
	cli.Close()
	why := Describe(lastErr)
	if perr := Probe(ctx, c, c.Endpoints[0]); perr != nil {
		why = perr.Error()
	}
	return nil, fmt.Errorf("cannot reach %s: %s", strings.Join(c.Endpoints, ","), why)
}

// stripSchemes leaves endpoints as given; clientv3 understands http(s)://
// and bare host:port. A bare host:port with TLS needs https:// so the
// balancer dials securely.
func stripSchemes(eps []string, secure bool) []string {
	out := make([]string, len(eps))
	for i, ep := range eps {
		if secure && !strings.Contains(ep, "://") {
			ep = "https://" + ep
		}
		out[i] = ep
	}
	return out
}
