package replay

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestPreload: the preload writes each prefix's census count with its
// mean key and value sizes, reports its progress, and on a lab cluster
// compacts when the source had compacted; on any other cluster it does
// not (etcd's compaction is the whole store's).
func TestPreload(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{})
	cli := c.KV()
	p := &Profile{Kind: Kind, Version: Version,
		Operations: []Operation{{Op: OpPut, Prefix: "/registry/pods/", Rate: 1}},
		Keyspace: &Keyspace{Keys: 650, CompactRevision: 10, Prefixes: []PrefixShape{
			{Prefix: "/registry/pods/", Keys: 500, KeyBytes: 40, ValueBytes: 300},
			{Prefix: "/registry/events/", Keys: 150, KeyBytes: 60, ValueBytes: 2000}}}}
	const prefix = "/preload/"
	live, err := NewPlan(p, Options{Prefix: "/live/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Preload(context.Background(), cli, nil); err != nil {
		t.Fatal(err)
	}
	{
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := cli.Get(ctx, "/live/", clientv3.WithPrefix(), clientv3.WithRev(2))
		cancel()
		if err != nil {
			t.Fatalf("a preload on a cluster etcdlab did not start compacted it: %v", err)
		}
	}
	pl, err := NewPlan(p, Options{Prefix: prefix, Lab: true})
	if err != nil {
		t.Fatal(err)
	}
	var last, calls int64
	if err := pl.Preload(context.Background(), cli, func(done, total int64) { last, calls = done, calls+1; _ = total }); err != nil {
		t.Fatal(err)
	}
	if last != 650 || calls < 6 || pl.PreloadKeys() != 650 {
		t.Errorf("progress ended at %d after %d calls; PreloadKeys %d", last, calls, pl.PreloadKeys())
	}
	var bytes int64
	for _, s := range p.Keyspace.Prefixes {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := cli.Get(ctx, prefix+strings.TrimPrefix(s.Prefix, "/"), clientv3.WithPrefix())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var kb, vb float64
		for _, kv := range r.Kvs {
			// The source's key, without what the bench prefix adds.
			kb += float64(len(kv.Key) - len(prefix) + 1)
			vb += float64(len(kv.Value))
			bytes += int64(len(kv.Key) + len(kv.Value))
		}
		n := float64(len(r.Kvs))
		if n != float64(s.Keys) || math.Abs(kb/n-s.KeyBytes) > 0.05*s.KeyBytes || math.Abs(vb/n-s.ValueBytes) > 0.05*s.ValueBytes {
			t.Errorf("%s: %g keys of %.1f+%.1f bytes, want %d of %g+%g", s.Prefix, n, kb/n, vb/n, s.Keys, s.KeyBytes, s.ValueBytes)
		}
	}
	if bytes != pl.PreloadBytes() {
		t.Errorf("wrote %d bytes, PreloadBytes says %d", bytes, pl.PreloadBytes())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(2)); !errors.Is(err, rpctypes.ErrCompacted) {
		t.Errorf("reading revision 2 after the preload: %v, want compacted", err)
	}
}

// TestReplay plays a small profile (put, range, txn, delete, lease grant
// and revoke; 4 watchers on 2 streams with fan-out 2; 10 leases with 2
// keys each) for 4 s and counts on the server what it did: each
// operation's requests within 10% of its rate, events per write 2,
// keep-alives at their rate. Stop leaves no lease and no watcher.
func TestReplay(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{})
	cli := c.KV()
	p := &Profile{Kind: Kind, Version: Version,
		Keyspace: &Keyspace{Keys: 300, Prefixes: []PrefixShape{{Prefix: "/a/", Keys: 200, ValueBytes: 100}, {Prefix: "/b/", Keys: 100, ValueBytes: 200}}},
		Operations: []Operation{
			{Op: OpPut, Prefix: "/a/", Rate: 40, ValueBytes: 100},
			{Op: OpRange, Prefix: "/a/", Rate: 30, RangeKeys: 10, Serializable: 0.5},
			{Op: OpTxn, Prefix: "/b/", Rate: 20, Txn: &TxnShape{Compares: 1, Puts: 1}},
			{Op: OpDelete, Prefix: "/a/", Rate: 10},
			{Op: OpLeaseGrant, Rate: 5},
			{Op: OpLeaseRevoke, Rate: 5},
		},
		Watches: &Watches{Watchers: 4, Streams: 2, FanOut: 2},
		Leases:  &Leases{Count: 10, TTL: result.Duration(30 * time.Second), KeysPerLease: 2, KeepalivesPerSecond: 10},
	}
	const prefix = "/replay/"
	pl, err := NewPlan(p, Options{Prefix: prefix, Duration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := pl.Preload(ctx, cli, nil); err != nil {
		t.Fatal(err)
	}
	bg, err := pl.Start(ctx, cli)
	if err != nil {
		t.Fatal(err)
	}
	defer bg.Stop(ctx) //nolint:errcheck // stopped below; this is for a failure before
	if s := bg.Stats(); s.Watchers != 4 || s.Streams != 2 || s.Leases != 10 || s.LeaseKeys != 20 {
		t.Errorf("background %+v", s)
	}
	url := c.State().MetricsURLs[0]
	before, t0 := scrape(t, url), time.Now()
	s, err := load.Open(ctx, load.Options{Conn: c.Client(), Conns: 2}, pl.Workload())
	if err != nil {
		t.Fatal(err)
	}
	run, err := s.Run(ctx, load.Spec{Clients: 16, Curve: pl.Curve(), RequestTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
	after, elapsed := scrape(t, url), time.Since(t0).Seconds()
	if len(run.Errors) != 0 {
		t.Errorf("errors: %v %v", run.Errors, run.ErrorMessages)
	}
	handled := metrics.IncreaseBy(before, after, "grpc_server_handled_total", "grpc_method", nil)
	for _, want := range []struct {
		method string
		n      float64
	}{{"Put", 160}, {"Range", 120}, {"Txn", 80}, {"DeleteRange", 40}, {"LeaseGrant", 20}, {"LeaseRevoke", 20}} {
		if got := handled[want.method]; math.Abs(got-want.n) > 0.1*want.n+1 {
			t.Errorf("%s: the server handled %g, the profile asks for %g", want.method, got, want.n)
		}
	}
	events, _ := metrics.Increase(before, after, "etcd_debugging_mvcc_events_total")
	revs := gauge(after, "etcd_debugging_mvcc_current_revision") - gauge(before, "etcd_debugging_mvcc_current_revision")
	if revs < 200 || math.Abs(events/revs-2) > 0.2 {
		t.Errorf("%g events for %g revisions, want fan-out 2", events, revs)
	}
	renewed, _ := metrics.Increase(before, after, "etcd_debugging_lease_renewed_total")
	if want := 10 * elapsed; math.Abs(renewed-want) > 0.1*want+2 {
		t.Errorf("%g keep-alives in %.1fs, want %.0f", renewed, elapsed, want)
	}
	if st := bg.Stats(); st.KeepalivesFailed != 0 || st.Events < int64(events)/2 {
		t.Errorf("background %+v, server sent %g events", st, events)
	}
	if err := bg.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bg.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if l, err := cli.Leases(lctx); err != nil || len(l.Leases) != 0 {
		t.Errorf("leases after Stop: %v %v", l, err)
	}
	clustertest.WaitFor(t, 10*time.Second, "no watcher after Stop", func() bool {
		return gauge(scrape(t, url), "etcd_debugging_mvcc_watcher_total") == 0
	})
	if n := c.Count(prefix + "a/"); n < 180 {
		t.Errorf("%d keys left under a/ of 200: the deletes drained it", n)
	}
}

func scrape(t *testing.T, url string) *metrics.Snapshot {
	t.Helper()
	s, err := metrics.Scrape(context.Background(), url, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func gauge(s *metrics.Snapshot, name metrics.Name) float64 {
	v, _ := s.Gauge(name)
	return v
}
