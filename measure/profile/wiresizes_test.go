package profile

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/observe/metrics"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// TestWireSizes measures, on a real member, the response sizes the
// derivation of a Range's size takes off the bytes sent to clients: a Put's
// response, an event's bytes beyond its key and value plus its watch
// message's (one event per message), and a keep-alive's answer; each must
// be within a quarter of the constant rangeBytes uses (an etcd whose
// responses grew would make every profile's range sizes wrong).
func TestWireSizes(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{BaseDir: clustertest.Tmpfs(t)})
	cli := c.KV()
	sc := metrics.NewScraper(nil, Families(), nil)
	defer sc.Close()
	url := c.State().MetricsURLs[0]
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sent := func() float64 {
		s, err := sc.Scrape(ctx, url, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := s.Gauge(metrics.ClientGRPCSent) // a counter read as its current value
		return v
	}
	const n, kv = 500, 16 + 1000
	val := strings.Repeat("v", 1000)
	key := func(i int) string { return "/wire/key-" + strconv.Itoa(100000+i) } // 16 bytes
	put := func() float64 {
		b := sent()
		for i := range n {
			if _, err := cli.Put(ctx, key(i), val); err != nil {
				t.Fatal(err)
			}
		}
		return (sent() - b) / n
	}
	perPut := put()
	wctx, stop := context.WithCancel(ctx)
	ch := cli.Watch(wctx, "/wire/", clientv3.WithPrefix())
	go func() {
		for range ch {
		}
	}()
	clustertest.WaitFor(t, 10*time.Second, "the watcher", func() bool {
		s, err := sc.Scrape(ctx, url, 5*time.Second)
		w, _ := s.Gauge(Watchers)
		return err == nil && w >= 1
	})
	perWatchedPut := put()
	stop()
	lease, err := cli.Grant(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	b := sent()
	for range 100 {
		if _, err := cli.KeepAliveOnce(ctx, lease.ID); err != nil {
			t.Fatal(err)
		}
	}
	perKeepalive := (sent() - b) / 100
	event := perWatchedPut - perPut - kv // the event and its message, beyond key and value
	for _, m := range []struct {
		what      string
		got, want float64
	}{
		{"a put's response", perPut, unaryResponse},
		{"an event and its watch message beyond key and value", event, watchEvent + watchMessage},
		{"a keep-alive's answer", perKeepalive, keepaliveResponse},
	} {
		t.Logf("%s: %.1f bytes (the derivation counts %.0f)", m.what, m.got, m.want)
		if math.Abs(m.got-m.want) > m.want/4 {
			t.Errorf("%s: %.1f bytes on the wire, %.0f in the derivation: off by more than a quarter", m.what, m.got, m.want)
		}
	}
}
