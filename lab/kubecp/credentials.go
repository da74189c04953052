package kubecp

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/pki"
)

// credentials are the files the lab writes into the run directory: one CA
// for serving and client certificates, the apiserver's serving pair, the
// service-account signing key pair, and one client pair per user.
type credentials struct {
	dir                  string
	authority            *pki.CA // issues the nodes' client certificates
	ca                   string
	serverCert, serverKy string
	saKey, saPub         string
	users                map[string][2]string // user → cert, key
}

// Users, as Kubernetes' bootstrap RBAC knows them.
const (
	adminUser     = "kubernetes-admin" // group system:masters
	kcmUser       = "system:kube-controller-manager"
	schedulerUser = "system:kube-scheduler"
)

// writeCredentials makes and writes every credential into dir.
func writeCredentials(dir string) (*credentials, error) {
	ca, err := pki.NewCA("etcdlab kubernetes CA")
	if err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	c := &credentials{dir: dir, authority: ca, ca: filepath.Join(dir, "ca.crt"), users: map[string][2]string{}}
	if err := os.WriteFile(c.ca, ca.CertPEM(), 0o644); err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	srv, err := ca.Server("kube-apiserver", []string{"127.0.0.1", "localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", serviceIP})
	if err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	if c.serverCert, c.serverKy, err = srv.Write(dir, "apiserver"); err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	for _, u := range []struct {
		name, file string
		groups     []string
	}{{adminUser, "admin", []string{"system:masters"}}, {kcmUser, "controller-manager", nil}, {schedulerUser, "scheduler", nil}} {
		p, err := ca.ClientIn(u.name, u.groups...)
		if err != nil {
			return nil, fmt.Errorf("kubecp: %w", err)
		}
		cert, key, err := p.Write(dir, u.file)
		if err != nil {
			return nil, fmt.Errorf("kubecp: %w", err)
		}
		c.users[u.name] = [2]string{cert, key}
	}
	if err := c.writeServiceAccountKeys(); err != nil {
		return nil, err
	}
	return c, nil
}

// writeServiceAccountKeys makes the key pair that signs service-account
// tokens (ECDSA P-256, which the apiserver accepts).
func (c *credentials) writeServiceAccountKeys() error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("kubecp: service-account key: %w", err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("kubecp: service-account key: %w", err)
	}
	pder, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return fmt.Errorf("kubecp: service-account key: %w", err)
	}
	c.saKey, c.saPub = filepath.Join(c.dir, "sa.key"), filepath.Join(c.dir, "sa.pub")
	if err := os.WriteFile(c.saKey, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	if err := os.WriteFile(c.saPub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pder}), 0o644); err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	return nil
}

// kubeconfigPath is the kubeconfig of a user.
func (c *credentials) kubeconfigPath(user string) string {
	return filepath.Join(c.dir, strings.NewReplacer("system:", "", ":", "-").Replace(user)+".kubeconfig")
}

// kubeconfigs writes one kubeconfig per user for the apiserver at url and
// returns the administrator's.
func (c *credentials) kubeconfigs(url string) (string, error) {
	for user, pair := range c.users {
		if err := c.writeKubeconfig(c.kubeconfigPath(user), url, user, pair); err != nil {
			return "", err
		}
	}
	return c.kubeconfigPath(adminUser), nil
}

// nodeKubeconfig issues a node's client certificate (system:node:NAME in
// system:nodes, what the Node authorizer and the node's RBAC expect) and
// writes its kubeconfig for the apiserver at url.
func (c *credentials) nodeKubeconfig(name, url string) (string, error) {
	user := "system:node:" + name
	p, err := c.authority.ClientIn(user, "system:nodes")
	if err != nil {
		return "", fmt.Errorf("kubecp: %w", err)
	}
	cert, key, err := p.Write(c.dir, "node-"+name)
	if err != nil {
		return "", fmt.Errorf("kubecp: %w", err)
	}
	path := filepath.Join(c.dir, "node-"+name+".kubeconfig")
	return path, c.writeKubeconfig(path, url, user, [2]string{cert, key})
}

// writeKubeconfig writes a kubeconfig for user (its certificate and key
// files in pair) and the apiserver at url.
func (c *credentials) writeKubeconfig(path, url, user string, pair [2]string) error {
	k := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: etcdlab
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %q
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: etcdlab
  context:
    cluster: etcdlab
    user: %q
current-context: etcdlab
`, url, c.ca, user, pair[0], pair[1], user)
	if err := os.WriteFile(path, []byte(k), 0o600); err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	return nil
}

// adminClient is an HTTP client as the administrator.
func (c *credentials) adminClient() (*http.Client, error) {
	pair := c.users[adminUser]
	cert, err := tls.LoadX509KeyPair(pair[0], pair[1])
	if err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	caPEM, err := os.ReadFile(c.ca)
	if err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}},
	}, nil
}
