package safety

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestRules applies every rule to a real cluster with a 16 MiB quota.
func TestRules(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{Tuning: member.Tuning{QuotaBackendBytes: 16 << 20}})
	cli := c.KV()
	ctx := context.Background()
	cl := Cluster{Cli: cli, Endpoints: c.Endpoints()}

	// The prefix: empty is fine, holding keys is refused with the count.
	if err := cl.CheckPrefixEmpty(ctx, "/p/"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"/p/a", "/p/b", "/p/c", "/q/a"} {
		if _, err := cli.Put(ctx, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	var inUse *PrefixInUseError
	if err := cl.CheckPrefixEmpty(ctx, "/p/"); !errors.As(err, &inUse) || inUse.Keys != 3 || !strings.Contains(err.Error(), "already holds 3 keys") {
		t.Fatalf("prefix in use: %v", err)
	}

	// The quota: a small estimate passes, one past half the quota does not.
	for _, tc := range []struct {
		estimate int64
		refused  bool
	}{{1 << 20, false}, {9 << 20, true}} {
		err := cl.CheckQuota(ctx, tc.estimate)
		var q *QuotaError
		if errors.As(err, &q) != tc.refused || (err != nil && !tc.refused) {
			t.Errorf("estimate %d: %v", tc.estimate, err)
		}
		if tc.refused && (q.Quota != 16<<20 || q.Limit != 8<<20 || !strings.Contains(err.Error(), "16 MiB quota")) {
			t.Errorf("estimate %d: %+v %v", tc.estimate, q, err)
		}
	}

	// Cleanup deletes only the prefix, also with a cancelled context.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	note, err := cl.Cleanup(cancelled, "/p/", true)
	if err != nil || !strings.Contains(note, "deleted 3 keys under /p/ and compacted to revision") {
		t.Fatalf("cleanup: %q %v", note, err)
	}
	if r, err := cli.Get(ctx, "/", clientv3WithPrefixCount()...); err != nil || r.Count != 1 {
		t.Fatalf("after cleanup: %v keys, %v", r.Count, err)
	}

	// The guard stops a run whose database passes half the quota.
	g := cl.StartGuard(ctx)
	defer g.Close()
	if g.Reason() != "" {
		t.Fatal("a reason before the guard stopped anything")
	}
	value := strings.Repeat("x", 512<<10)
	for i := range 18 { // 9 MiB
		if _, err := cli.Put(ctx, "/g/"+string(rune('a'+i)), value); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-g.Stop():
	case <-time.After(5 * GuardInterval):
		t.Fatal("the guard did not stop the run")
	}
	if r := g.Reason(); !strings.Contains(r, "past 50% of its 16 MiB quota") {
		t.Fatalf("reason %q", r)
	}
}

func TestStatusUnreachable(t *testing.T) {
	t.Parallel()
	cfg := etcdclient.Config{Endpoints: []string{"127.0.0.1:1"}, DialTimeout: 500 * time.Millisecond}
	cli, err := etcdclient.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	cl := Cluster{Cli: cli, Endpoints: cfg.Endpoints, Timeout: cfg.DialTimeout}
	if _, _, err := cl.Quota(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "read the database size") {
		t.Fatalf("quota of an unreachable cluster: %v", err)
	}
}

func TestEstimate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		requests, keysPerRequest float64
		prefix                   string
		keySize, valSize         int
		want                     int64
	}{
		{0, 1, "/p/", 8, 256, 0},
		{1000, 1, "/p/", 8, 256, 1000 * (3 + 8 + 256 + PerKVOverhead)},
		{1000, 3, "", 8, 0, 3000 * (8 + PerKVOverhead)},
		{10, 0.5, "/x/", 1, 1, 5 * (3 + 1 + 1 + PerKVOverhead)},
		{1, 1.0 / 3, "", 0, 2, 22}, // rounded up
	} {
		if got := Estimate(tc.requests, tc.keysPerRequest, tc.prefix, tc.keySize, tc.valSize); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc, got, tc.want)
		}
	}
}

func TestRunID(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	id := RunID(at)
	if !regexp.MustCompile(`^20260304T040607-[0-9a-f]{4}$`).MatchString(id) {
		t.Fatalf("RunID %q", id)
	}
}

func clientv3WithPrefixCount() []clientv3.OpOption {
	return []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCountOnly()}
}
