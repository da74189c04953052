package cluster

import (
	"fmt"
	"net"
	"strconv"
)

// memberPorts are the three ports one member listens on.
type memberPorts struct {
	Client, Peer, Metrics int
}

// freePorts finds n sets of free ports on host by binding port 0. All
// listeners are held until every port is chosen, so the sets are distinct;
// another program may still take one before the member binds it, which Start
// handles by retrying.
func freePorts(host string, n int) ([]memberPorts, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	ports := make([]int, 0, 3*n)
	for len(ports) < 3*n {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("find a free port on %s: %w", host, err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	out := make([]memberPorts, n)
	for i := range out {
		out[i] = memberPorts{Client: ports[3*i], Peer: ports[3*i+1], Metrics: ports[3*i+2]}
	}
	return out, nil
}

// fixedPorts lays out n members from base: client base+3i, peer +1, metrics +2.
func fixedPorts(base, n int) []memberPorts {
	out := make([]memberPorts, n)
	for i := range out {
		p := base + 3*i
		out[i] = memberPorts{Client: p, Peer: p + 1, Metrics: p + 2}
	}
	return out
}

// checkPortsFree binds and releases every port, and names the first one that
// is taken.
func checkPortsFree(host string, names []string, ports []memberPorts) error {
	for i, mp := range ports {
		for _, p := range []struct {
			what string
			port int
		}{{"client", mp.Client}, {"peer", mp.Peer}, {"metrics", mp.Metrics}} {
			addr := net.JoinHostPort(host, strconv.Itoa(p.port))
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("port %s (member %s %s) is in use", addr, names[i], p.what)
			}
			ln.Close()
		}
	}
	return nil
}
