package etcdclient_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/lab/pki"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

// TestProbeExplainsFailures runs Probe and NewChecked against a real TLS
// member and a real plaintext member with right and wrong credentials.
func TestProbeExplainsFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tlsC := clustertest.Start(t, cluster.Options{TLS: true})
	plain := clustertest.Start(t, cluster.Options{})

	otherCA, err := pki.NewCA("other")
	if err != nil {
		t.Fatal(err)
	}
	wrongCA := filepath.Join(t.TempDir(), "wrong-ca.crt")
	if err := os.WriteFile(wrongCA, otherCA.CertPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	good := tlsC.Client()
	noCert := good
	noCert.Cert, noCert.Key = "", ""
	badCA := good
	badCA.CACert = wrongCA
	tlsToPlain := good
	tlsToPlain.Endpoints = []string{strings.Replace(plain.Endpoints()[0], "http://", "https://", 1)}
	refused := etcdclient.Config{Endpoints: []string{"http://127.0.0.1:1"}}

	for _, tt := range []struct {
		name string
		cfg  etcdclient.Config
		want string // "" means success
	}{
		{"good TLS", good, ""},
		{"plaintext", plain.Client(), ""},
		{"no client certificate", noCert, "client certificate"},
		{"wrong CA", badCA, "unknown authority"},
		{"TLS to a plaintext server", tlsToPlain, "does not speak TLS"},
		{"refused", refused, "connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			perr := etcdclient.Probe(ctx, tt.cfg, tt.cfg.Endpoints[0])
			cli, cerr := etcdclient.NewChecked(ctx, tt.cfg)
			if cli != nil {
				cli.Close()
			}
			if tt.want == "" {
				if perr != nil || cerr != nil {
					t.Fatalf("want success, got probe %v, connect %v", perr, cerr)
				}
				return
			}
			if perr == nil || !strings.Contains(perr.Error(), tt.want) {
				t.Fatalf("probe: %v, want %q", perr, tt.want)
			}
			if cerr == nil || !strings.Contains(cerr.Error(), tt.want) || strings.Contains(cerr.Error(), "\n") {
				t.Fatalf("NewChecked: %v, want one line with %q", cerr, tt.want)
			}
		})
	}
}
