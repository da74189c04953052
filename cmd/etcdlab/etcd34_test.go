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

// TestEtcd34Commands: bench, bench kube, doctor and check against a TLS
// cluster of Debian's etcd 3.4 members (cluster.Options.Etcd), and of 3.5
// members built from etcd's modules: each runs, and its result says the
// members run that version, member by member.
func TestEtcd34Commands(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("3-member clusters, checks, and etcd 3.5 built from its modules")
	}
	for _, tc := range []struct{ version, etcd string }{{"3.4.23", debianEtcd}, {"3.5.35", "3.5.35"}} {
		t.Run(tc.version, func(t *testing.T) {
			t.Parallel()
			if _, err := os.Stat(tc.etcd); strings.Contains(tc.etcd, "/") && err != nil {
				t.Skipf("no %s (CI installs Debian's etcd-server): %v", tc.etcd, err)
			}
			otherEtcdCommands(t, tc.etcd, tc.version)
		})
	}
}

// otherEtcdCommands runs bench, bench kube, doctor and check against a TLS
// cluster of etcd (a binary or a version) and checks each result names
// version.
func otherEtcdCommands(t *testing.T, etcd, version string) {
	c := startCluster(t, cluster.Options{Members: 3, TLS: true, ClientTLSDir: t.TempDir(), Etcd: etcd})
	cc := c.Client()
	conn := []string{"--endpoints=" + strings.Join(cc.Endpoints, ","), "--cacert=" + cc.CACert, "--cert=" + cc.Cert, "--key=" + cc.Key}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		out  string // the result file
	}{
		{"bench", append(append([]string{"bench"}, conn...), "--conns=2", "--clients=4", "-o", "json", "put", "--total=500"), ""},
		{"kube", append(append([]string{"bench"}, conn...), "--iterations=1", "-o", "json", "kube", "--deployments=1", "--replicas=5", "--nodes=1"), ""},
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
		if !strings.Contains(text, `"`+version+`"`) {
			t.Errorf("%s: the result does not say the members run %s:\n%.2000s", tc.name, version, text)
		}
		if tc.name != "doctor" && !strings.Contains(text, `"m2": "`+version+`"`) {
			t.Errorf("%s: the result does not say member m2 runs %s:\n%.2000s", tc.name, version, text)
		}
	}
}
