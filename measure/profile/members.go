package profile

import (
	"context"
	"fmt"
	"strings"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// client is a client of the endpoints, dialling within requestTimeout.
func client(conn etcdclient.Config, endpoints ...string) (*clientv3.Client, error) {
	c := conn
	if len(endpoints) > 0 {
		c.Endpoints = endpoints
	}
	if c.DialTimeout <= 0 || c.DialTimeout > requestTimeout {
		c.DialTimeout = requestTimeout
	}
	return etcdclient.New(c)
}

// metricsURLs are the URLs to scrape: MetricsURLs when given, else every
// started member's first client URL from the member list (a MemberList, a
// read), else the endpoints, with a note saying why.
func (o *Options) metricsURLs(ctx context.Context) ([]string, []string) {
	if len(o.MetricsURLs) > 0 {
		return o.MetricsURLs, nil
	}
	fallback := func(err error) ([]string, []string) {
		return o.endpointURLs(), []string{fmt.Sprintf("the member list could not be read (%s): only the endpoints' metrics were scraped", etcdclient.Describe(err))}
	}
	cli, err := client(o.Conn)
	if err != nil {
		return fallback(err)
	}
	defer cli.Close()
	lctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	resp, err := cli.MemberList(lctx)
	if err != nil {
		return fallback(err)
	}
	var urls []string
	for _, m := range resp.Members {
		if len(m.ClientURLs) > 0 {
			urls = append(urls, m.ClientURLs[0])
		}
	}
	if len(urls) == 0 {
		return o.endpointURLs(), nil
	}
	return urls, nil
}

// endpointURLs are the endpoints as URLs: etcdctl's host:port gets
// https:// when the connection has TLS files, else http://.
func (o *Options) endpointURLs() []string {
	out := make([]string, len(o.Conn.Endpoints))
	for i, ep := range o.Conn.Endpoints {
		switch {
		case strings.Contains(ep, "://"):
			out[i] = ep
		case o.Conn.CACert != "" || o.Conn.Cert != "":
			out[i] = "https://" + ep
		default:
			out[i] = "http://" + ep
		}
	}
	return out
}
