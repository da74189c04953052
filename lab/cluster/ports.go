package cluster

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// memberPorts are the three ports one member listens on.
type memberPorts struct {
	Client, Peer, Metrics int
}

// freePorts finds n sets of free ports on host. It draws them at random
// from below the kernel's ephemeral range (ip_local_port_range), where no
// outgoing connection's local port can land: a port bound with port 0 comes
// from that range, and a kept cluster restarting on it could find it taken
// by some client's connection. All listeners are held until every port is
// chosen, so the sets are distinct; another program may still take one
// before the member binds it, which Start handles by retrying.
func freePorts(host string, n int) ([]memberPorts, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	lo, hi := lowestListenPort, listenCeiling()
	ports := make([]int, 0, 3*n)
	for tries := 0; len(ports) < 3*n; tries++ {
		port := 0 // the kernel's choice, if the range below is too small or full
		if hi-lo >= 1000 && tries < 200 {
			port = lo + rand.IntN(hi-lo)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
		if err != nil {
			if port != 0 {
				continue
			}
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

// lowestListenPort is the lowest port freePorts draws.
const lowestListenPort = 10000

// listenCeiling is the first port freePorts does not draw: the first
// ephemeral port the kernel hands out, read from
// /proc/sys/net/ipv4/ip_local_port_range (32768 when it cannot be read).
func listenCeiling() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		if v, err := strconv.Atoi(f[0]); err == nil && v > 0 {
			return v
		}
	}
	return 32768
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
