package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/lab/cluster"
)

// debianEtcd is Debian's etcd-server package's binary (3.4.23); CI
// installs it (.ci/run).
const debianEtcd = "/usr/bin/etcd"

// TestEtcd34Commands: bench, doctor and check against a TLS cluster of
// Debian's etcd 3.4 members (cluster.Options.Etcd): each runs, and its
// result says the members run 3.4.
func TestEtcd34Commands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a 3-member cluster and a check")
	}
	if _, err := os.Stat(debianEtcd); err != nil {
		t.Skipf("no %s (CI installs Debian's etcd-server): %v", debianEtcd, err)
	}
	c := startCluster(t, cluster.Options{Members: 3, TLS: true, ClientTLSDir: t.TempDir(), Etcd: debianEtcd})
	cc := c.Client()
	conn := []string{"--endpoints=" + strings.Join(cc.Endpoints, ","), "--cacert=" + cc.CACert, "--cert=" + cc.Cert, "--key=" + cc.Key}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		out  string // the result file
	}{
		{"bench", append(append([]string{"bench"}, conn...), "--conns=2", "--clients=4", "-o", "json", "put", "--total=500"), ""},
		{"doctor", append(append([]string{"doctor"}, conn...), "--window=3s", "-o", "json"), ""},
		{"check", append(append([]string{"check"}, conn...), "--out", filepath.Join(dir, "check")), filepath.Join(dir, "check", "result.json")},
	} {
		code, stdout, stderr := runCLI(context.Background(), tc.args...)
		// A check whose verdict is FAIL (a loaded machine) still ran.
		if failed := code != exitcode.OK && (tc.name != "check" || code != exitcode.CheckFailed); failed {
			t.Errorf("%s: exit %d: %s", tc.name, code, stderr)
			continue
		}
		text := stdout
		if tc.out != "" {
			b, err := os.ReadFile(tc.out)
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			text = string(b)
		}
		if !strings.Contains(text, `"3.4.23"`) {
			t.Errorf("%s: the result does not say the members run 3.4.23:\n%.2000s", tc.name, text)
		}
	}
}
