package bench

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// TestGivenCluster: a run on a cluster the caller started (Config.Cluster)
// goes to it as to etcdlab's own (no safety rules: its keys stay, a
// prefix in use is fine), leaves it running, and its observers see the
// warm-up and each measured run begin.
func TestGivenCluster(t *testing.T) {
	t.Parallel()
	c, cli := foreign(t, cluster.Options{TLS: true, ClientTLSDir: t.TempDir()})
	cfg := baseConfig(c, CmdPut)
	cfg.Conn = etcdclient.Config{DialTimeout: 2 * time.Second} // no endpoints, no TLS files: they come from the cluster
	cfg.Cluster = c.Cluster
	cfg.Prefix, cfg.SequentialKeys = "/given/", true
	cfg.Iterations, cfg.Warmup = 2, "50"
	o := &recorder{}
	cfg.Observers = []Observer{o}
	doc, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Runs) != 2 || !doc.Environment.LocalCluster || doc.Environment.DataDir != c.DataDir() || !doc.Bench.TLS {
		t.Fatalf("runs %d, env %+v, bench %+v", len(doc.Runs), doc.Environment, doc.Bench)
	}
	var started []string
	for _, e := range o.events {
		if name, ok := strings.CutPrefix(e, "begin "); ok && !strings.HasSuffix(e, "warm-up") && !strings.HasPrefix(name, "bench ") {
			started = append(started, name)
		}
	}
	want := []string{"put conns=2 clients=4 iteration=1", "put conns=2 clients=4 iteration=2"}
	if !slices.Equal(started, want) {
		t.Fatalf("runs begun %q, want %q", started, want)
	}
	if slices.Contains(o.events, "cleaned up") {
		t.Errorf("a caller's cluster was cleaned up: %q", o.events)
	}
	if n := clustertest.Count(t, cli, "/given/"); n != 200 {
		t.Fatalf("%d keys under the prefix, want the 200 written (a caller's cluster is not cleaned)", n)
	}
	// Still running: a second run with the prefix in use works.
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("second run on the same cluster: %v", err)
	}
}
