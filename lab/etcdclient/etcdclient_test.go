package etcdclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/invalid"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestDescribe(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{context.DeadlineExceeded, "timed out"},
		{fmt.Errorf("x: %w", context.Canceled), "canceled"},
		{status.Error(codes.Unavailable, "connection error: desc = \"transport: dial tcp 127.0.0.1:1: connect: connection refused\""), "connection refused"},
		{status.Error(codes.DeadlineExceeded, "context deadline exceeded"), "timed out"},
		{errors.New("tls: failed to verify certificate: x509: certificate signed by unknown authority"), "TLS: certificate signed by unknown authority"},
		{status.Error(codes.InvalidArgument, "etcdserver: authentication failed, invalid user ID or password"), "authentication failed: invalid user name or password"},
		{errors.New("line one\nline two"), "line one"},
	} {
		if got := Describe(tt.err); got != tt.want {
			t.Errorf("Describe(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	c := Config{Endpoints: []string{"127.0.0.1:2379"}, User: "root:s3cret", CACert: "ca.crt"}
	if r := c.Redacted(); strings.Contains(r, "s3cret") || r != "root:<redacted>" {
		t.Fatalf("Redacted = %q", r)
	}
	if (Config{Endpoints: []string{"http://x:1"}}).UsesTLS() || !(Config{Endpoints: []string{"https://x:1"}}).UsesTLS() {
		t.Fatal("UsesTLS by scheme")
	}
	cfg, err := Config{Endpoints: []string{"127.0.0.1:2379"}, User: "root:pw"}.ClientV3()
	if err != nil || cfg.Username != "root" || cfg.Password != "pw" || cfg.DialTimeout != DefaultDialTimeout {
		t.Fatalf("ClientV3 = %+v, %v", cfg, err)
	}
	if _, err := (Config{Endpoints: []string{"x"}, Cert: "c.crt"}).ClientV3(); !invalid.Is(err) || err.Error() != "Cert and Key must be given together" {
		t.Fatalf("Cert without Key: %v", err)
	}
	if _, err := (Config{}).ClientV3(); err == nil {
		t.Fatal("no endpoints accepted")
	}
}
