package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/emulate/wan"
)

// ClientNode names the clients' end of client links in Options.Links:
// Dir{ClientNode, "m1"} carries requests to m1, Dir{"m1", ClientNode} its
// answers.
const ClientNode = "client"

// Ports of every member inside the emulated network's namespace, where each
// member has an address of its own. Peers dial the advertised peer port,
// where the member's link proxy listens; etcd itself listens on the next.
const (
	nsClientPort     = 2379
	nsPeerPort       = 2380
	nsMetricsPort    = 2381
	nsRealPeerPort   = 12380
	memberLocalAddrs = "SetMemberLocalAddr=true"
)

// network is a cluster's emulated WAN: members live in a network namespace
// of their own; a link proxy in front of each member's peer port carries
// every connection through the links between its source (told by its
// address) and that member; client and metrics forwarders on the host's
// loopback reach into the namespace, clients through their own links.
type network struct {
	ns      *labnet.Net
	links   *wan.Table
	plain   *wan.Table // metrics: never delayed
	names   []string
	proxies []*wan.Proxy
}

// startNetwork makes the namespace, sets the links, and starts the peer
// proxies and the forwarders on host:ports. Close it after the members
// stopped.
func startNetwork(names []string, host string, ports []memberPorts, links map[wan.Dir]wan.Link) (n *network, err error) {
	ns, err := labnet.New(len(names))
	if err != nil {
		return nil, err
	}
	n = &network{ns: ns, links: wan.NewTable(), plain: wan.NewTable(), names: names}
	defer func() {
		if err != nil {
			n.close()
		}
	}()
	for d, l := range links {
		if err := n.links.Set(d, l); err != nil {
			return nil, err
		}
	}
	for i, name := range names {
		ip := labnet.Addr(i).String()
		ln, err := ns.Listen(net.JoinHostPort(ip, strconv.Itoa(nsPeerPort)))
		if err != nil {
			return nil, fmt.Errorf("member %s: link proxy: %w", name, err)
		}
		n.serve(ln, &wan.Proxy{To: name, Table: n.links, Source: n.memberOf, Dial: n.dialer(ip, nsRealPeerPort, true)})
		for _, f := range []struct {
			port, to int
			table    *wan.Table
		}{{ports[i].Client, nsClientPort, n.links}, {ports[i].Metrics, nsMetricsPort, n.plain}} {
			addr := net.JoinHostPort(host, strconv.Itoa(f.port))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return nil, fmt.Errorf("member %s: port %s is in use", name, addr)
			}
			n.serve(ln, &wan.Proxy{To: name, Table: f.table, Source: fromClient, Dial: n.dialer(ip, f.to, false)})
		}
	}
	return n, nil
}

func (n *network) serve(ln net.Listener, p *wan.Proxy) {
	n.proxies = append(n.proxies, p)
	go func() { _ = p.Serve(ln) }()
}

// dialer connects to ip:port inside the namespace; for peers, from the
// source member's own address, so etcd's peer TLS check (the client
// certificate must name the remote address) sees the member it expects.
func (n *network) dialer(ip string, port int, asSource bool) func(context.Context, string) (net.Conn, error) {
	addr := net.JoinHostPort(ip, strconv.Itoa(port))
	return func(ctx context.Context, from string) (net.Conn, error) {
		var local netip.Addr
		if asSource {
			for i, name := range n.names {
				if name == from {
					local = labnet.Addr(i)
				}
			}
		}
		return n.ns.Dial(ctx, local, addr)
	}
}

func fromClient(net.Addr) (string, bool) { return ClientNode, true }

// memberOf names the member whose address a peer connection comes from.
func (n *network) memberOf(a net.Addr) (string, bool) {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return "", false
	}
	ip, ok := netip.AddrFromSlice(ta.IP)
	if !ok {
		return "", false
	}
	ip = ip.Unmap()
	for i, name := range n.names {
		if labnet.Addr(i) == ip {
			return name, true
		}
	}
	return "", false
}

// memberURLs are member i's URLs inside the namespace: where etcd listens
// for clients, peers (behind the proxy) and metrics, and the peer URL it
// advertises (the proxy).
func memberURLs(scheme string, i int) (listenClient, listenPeer, listenMetrics, advertisePeer string) {
	ip := labnet.Addr(i).String()
	u := func(s string, p int) string { return s + "://" + net.JoinHostPort(ip, strconv.Itoa(p)) }
	return u(scheme, nsClientPort), u(scheme, nsRealPeerPort), u("http", nsMetricsPort), u(scheme, nsPeerPort)
}

// probeRTT times GET /raft/probing from member from's address through the
// emulated path to member to's peer port: a real etcd endpoint behind both
// directions of the link.
func (n *network) probeRTT(ctx context.Context, from, to int, tlsCfg *tls.Config) (time.Duration, error) {
	src := labnet.Addr(from)
	dst := net.JoinHostPort(labnet.Addr(to).String(), strconv.Itoa(nsPeerPort))
	tr := &http.Transport{}
	scheme := "http"
	if tlsCfg != nil {
		tr.TLSClientConfig = tlsCfg
		scheme = "https"
	}
	tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) { return n.ns.Dial(ctx, src, dst) }
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func() (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, scheme+"://"+dst+"/raft/probing", nil)
		if err != nil {
			return 0, err
		}
		start := time.Now()
		resp, err := cl.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("probing %s: %s", dst, resp.Status)
		}
		return time.Since(start), nil
	}
	// The first request also pays for the connection's handshake; time the
	// second, over the open connection, as etcd's pipeline prober does.
	if _, err := get(); err != nil {
		return 0, err
	}
	return get()
}

// close stops the proxies and releases the namespace.
func (n *network) close() {
	for _, p := range n.proxies {
		_ = p.Close()
	}
	n.ns.Close()
}
