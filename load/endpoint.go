package load

import "net/url"

// endpointAddr turns an etcd endpoint into host:port and whether to use TLS:
// https://host:port always does, http://host:port never does, and a bare
// host:port does when a TLS configuration is given (haveTLS), as etcdctl.
func endpointAddr(ep string, haveTLS bool) (addr string, secure bool) {
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		return u.Host, u.Scheme == "https" || (haveTLS && u.Scheme != "http")
	}
	return ep, haveTLS
}
