package kubecp

import (
	"fmt"
	"net"
)

// freePort is a loopback TCP port no one listens on now. Another process
// may take it before the apiserver binds it: then the apiserver exits and
// Start fails with a StartError carrying its log.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("kubecp: a port for the apiserver: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
