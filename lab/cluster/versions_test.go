package cluster

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/slowfs"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
)

// TestVersionsLabFeatures: members of etcd 3.4 (Debian's binary) and 3.5
// (built from modules) get what the lab gives the embedded etcd: TLS, a
// slow disk every write pays, kill and restart on their data, a mixed
// cluster with the embedded etcd; an emulated network, which needs 3.6,
// is refused in one line before anything starts.
func TestVersionsLabFeatures(t *testing.T) {
	specs := map[string]string{"3.5": builtEtcd(t, oldEtcd)}
	if _, err := os.Stat(debianEtcd); err == nil {
		specs["3.4"] = debianEtcd
	}
	for minor, bin := range specs {
		t.Run(minor, func(t *testing.T) {
			if err := slowfs.Available(); err != nil {
				t.Skip(err)
			}
			d, _ := slowfs.ParseDelay("20ms")
			c := start(t, Options{Members: 3, TLS: true, FsyncDelay: d, Etcd: bin})
			if v := c.State().EtcdVersion; !strings.HasPrefix(v, minor+".") {
				t.Fatalf("the state says %q, want %s.x", v, minor)
			}
			cli := client(t, c.Client())
			assertSlowPuts(t, cli, 20*time.Millisecond)
			if err := c.Kill("m2"); err != nil {
				t.Fatal(err)
			}
			if err := c.Restart("m2"); err != nil {
				t.Fatal(err)
			}
			waitHealthy(t, c, 1)
			if err := putRetry(cli, "after-restart", "v"); err != nil {
				t.Fatal(err)
			}
			_, err := Start(context.Background(), Options{Members: 3, BaseDir: t.TempDir(), Etcd: bin, Links: map[wan.Dir]wan.Link{}})
			if !invalid.Is(err) || !strings.Contains(err.Error(), "needs etcd 3.6 or newer") {
				t.Errorf("an emulated network on %s: %v", minor, err)
			}
		})
	}
	t.Run("mixed", func(t *testing.T) {
		prev := builtEtcd(t, prevEtcd)
		c := start(t, Options{Members: 3, MemberEtcd: map[string]string{"m3": prev}})
		st := c.State()
		if !strings.HasPrefix(st.EtcdVersion, "mixed: "+prevEtcd+" (m3), ") || st.Members[2].EtcdVersion != prevEtcd || st.Members[0].EtcdBinary != "" {
			t.Fatalf("state: %q; m3 %q, m1 from %q", st.EtcdVersion, st.Members[2].EtcdVersion, st.Members[0].EtcdBinary)
		}
		if err := putRetry(client(t, c.Client()), "mixed", "v"); err != nil {
			t.Fatal(err)
		}
		// Two minors apart is no cluster etcd runs: refused before a start.
		_, err := Start(context.Background(), Options{Members: 3, BaseDir: t.TempDir(), MemberEtcd: map[string]string{"m3": specs["3.5"]}})
		if !invalid.Is(err) || !strings.Contains(err.Error(), "one minor apart") {
			t.Errorf("3.5 beside 3.7: %v", err)
		}
	})
}
