package cluster

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/lab/pki"
)

// Names of the client TLS files, as the multi-cloud article's benchmark
// command uses them.
const (
	caFile         = "ca.crt"
	clientCertName = "client"
)

// writePKI makes a fresh CA, one certificate per member (server and peer) and
// a client certificate. Member files go to memberDir; the CA and client files
// go to clientDir as ca.crt, client.crt and client.key.
// With emulated set, each member's certificate also names its address in
// the emulated network.
func writePKI(memberDir, clientDir, host string, names []string, emulated bool) (map[string]*member.TLSFiles, *ClientTLS, error) {
	for _, d := range []string{memberDir, clientDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, fmt.Errorf("TLS dir %s: %w", d, unwrapPath(err))
		}
	}
	ca, err := pki.NewCA("etcdlab throw-away CA")
	if err != nil {
		return nil, nil, err
	}
	memberCA := filepath.Join(memberDir, caFile)
	if err := os.WriteFile(memberCA, ca.CertPEM(), 0o644); err != nil {
		return nil, nil, err
	}
	out := make(map[string]*member.TLSFiles, len(names))
	for i, n := range names {
		hosts := []string{host, "127.0.0.1", "::1", "localhost"}
		if emulated {
			hosts = append(hosts, labnet.Addr(i).String())
		}
		pair, err := ca.Server(n, hosts)
		if err != nil {
			return nil, nil, err
		}
		cert, key, err := pair.Write(memberDir, n)
		if err != nil {
			return nil, nil, err
		}
		out[n] = &member.TLSFiles{CertFile: cert, KeyFile: key, CAFile: memberCA}
	}
	cli, err := ca.Client("etcdlab-client")
	if err != nil {
		return nil, nil, err
	}
	cert, key, err := cli.Write(clientDir, clientCertName)
	if err != nil {
		return nil, nil, err
	}
	clientCA := filepath.Join(clientDir, caFile)
	if err := os.WriteFile(clientCA, ca.CertPEM(), 0o644); err != nil {
		return nil, nil, err
	}
	return out, &ClientTLS{CACert: clientCA, Cert: cert, Key: key}, nil
}

// removeClientTLS deletes the client files written by writePKI.
func removeClientTLS(t *ClientTLS) {
	if t == nil {
		return
	}
	for _, f := range []string{t.CACert, t.Cert, t.Key} {
		_ = rmIfExists(f)
	}
}
