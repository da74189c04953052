package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/observe/metrics"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestDefragFault fills a real member's database, frees it (delete and
// compact), then defragments it in a loop: the file shrinks, etcd says a
// defragmentation is in flight while the loop runs, defrag-stop ends the
// loop, and one given from another process (Inject) says what it did.
func TestDefragFault(t *testing.T) {
	t.Parallel()
	c := start(t, Options{Members: 1})
	ctx := context.Background()
	conn := c.Client()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	value := strings.Repeat("x", 16<<10)
	for i := range 2000 / 16 {
		ops := make([]clientv3.Op, 0, 16)
		for k := range 16 {
			ops = append(ops, clientv3.OpPut(fmt.Sprintf("/d/%06d", 16*i+k), value))
		}
		if _, err := cli.Txn(ctx).Then(ops...).Commit(); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := cli.Delete(ctx, "/d/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
		t.Fatal(err)
	}
	ep := c.Endpoints()[0]
	before, err := cli.Status(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	f, err := ParseFault(FaultDefrag, []string{"m1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(c, Request{Args: []string{"m1"}}); err != nil {
		t.Fatal(err)
	}
	// etcd 3.5 and newer say so while a defragmentation runs.
	url := c.State().Members[0].MetricsURL
	inflight := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && !inflight; {
		if s, err := metrics.Scrape(ctx, url+"/metrics", nil, 2*time.Second); err == nil {
			v, _ := s.Gauge(metrics.DefragInflight)
			inflight = v > 0
		}
	}
	if !inflight {
		t.Errorf("%s never showed a defragmentation in flight", metrics.DefragInflight)
	}
	stop, _ := ParseFault(FaultDefragStop, []string{"m1"})
	if err := stop.Apply(c, Request{Args: []string{"m1"}}); err != nil {
		t.Fatal(err)
	}
	after, err := cli.Status(ctx, ep)
	if err != nil {
		t.Fatal(err)
	}
	if after.DbSize >= before.DbSize/2 {
		t.Errorf("database %d bytes before, %d after the defragmentations", before.DbSize, after.DbSize)
	}
	if s, err := metrics.Scrape(ctx, url+"/metrics", nil, 2*time.Second); err == nil {
		if v, _ := s.Gauge(metrics.DefragInflight); v != 0 {
			t.Errorf("a defragmentation still in flight after defrag-stop returned")
		}
	}
	if n := c.Counts().Faults[FaultDefrag]; n != 1 {
		t.Errorf("counted %d defrags, want 1", n)
	}
	lines, err := f.Inject(ctx, c.State(), Request{Args: []string{"m1"}})
	if err != nil || len(lines) != 1 || !strings.HasPrefix(lines[0], "defragmented m1 in ") {
		t.Errorf("inject: %v %v", lines, err)
	}
	if _, err := f.Inject(ctx, c.State(), Request{Args: []string{"m9"}}); err == nil || !strings.Contains(err.Error(), `no member "m9"`) {
		t.Errorf("inject on m9: %v", err)
	}
}
