package cluster

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/emulate/labnet"
	"github.com/etcdlab/etcdlab/emulate/wan"
	"github.com/etcdlab/etcdlab/invalid"
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// symmetric sets both directions of every pair from one-way delays.
func symmetric(oneWay map[[2]string]time.Duration) map[wan.Dir]wan.Link {
	out := map[wan.Dir]wan.Link{}
	for p, d := range oneWay {
		out[wan.Dir{From: p[0], To: p[1]}] = wan.Link{Delay: d}
		out[wan.Dir{From: p[1], To: p[0]}] = wan.Link{Delay: d}
	}
	return out
}

func leaderOf(t *testing.T, c *Cluster) string {
	t.Helper()
	names := map[string]string{}
	for i, ep := range c.Endpoints() {
		names[ep] = c.Names()[i]
	}
	for _, s := range Status(context.Background(), c.Client(), names) {
		if s.Role == "leader" {
			return s.Name
		}
	}
	return ""
}

// TestEmulatedNetwork runs a 3-member cluster whose members are 20, 50 and
// 40 ms apart (round trip): probes through the emulated paths see those
// round trips, a put pays at least the leader's nearest quorum round trip,
// every peer link carries traffic, and a partitioned leader is replaced.
func TestEmulatedNetwork(t *testing.T) {
	t.Parallel()
	if err := labnet.Available(); err != nil {
		t.Skip(err)
	}
	links := symmetric(map[[2]string]time.Duration{{"m1", "m2"}: ms(10), {"m1", "m3"}: ms(25)})
	links[wan.Dir{From: "m2", To: "m3"}] = wan.Link{Delay: ms(30)}
	links[wan.Dir{From: "m3", To: "m2"}] = wan.Link{Delay: ms(10)}
	c := start(t, Options{Members: 3, Links: links})
	ctx := context.Background()
	for _, tc := range []struct {
		from, to string
		want     time.Duration
	}{{"m1", "m2", ms(20)}, {"m2", "m1", ms(20)}, {"m1", "m3", ms(50)}, {"m2", "m3", ms(40)}} {
		// The fastest of five probes: a busy machine only adds time (CI saw
		// +19 ms on a 50 ms path and +13 ms on a 20 ms one with parallel
		// tests); the upper bound catches a delay applied twice, which
		// measures at least twice the path.
		rtt := time.Hour
		for range 5 {
			r, err := c.ProbeRTT(ctx, tc.from, tc.to)
			if err != nil {
				t.Fatalf("probe %s->%s: %v", tc.from, tc.to, err)
			}
			rtt = min(rtt, r)
		}
		if rtt < tc.want || rtt >= 2*tc.want {
			t.Errorf("probe %s->%s: %v, want %v (and under twice that)", tc.from, tc.to, rtt, tc.want)
		}
	}
	cli := client(t, c.Client())
	leader := leaderOf(t, c)
	if leader == "" {
		t.Fatal("no leader")
	}
	// The leader's nearest follower sets the commit round trip.
	nearest := map[string]time.Duration{"m1": ms(20), "m2": ms(20), "m3": ms(40)}[leader]
	best := time.Hour
	for i := range 5 {
		t0 := time.Now()
		if err := put(cli, "k", string(rune('a'+i))); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(t0))
	}
	if best < nearest {
		t.Errorf("fastest put %v, below the leader %s's quorum round trip %v", best, leader, nearest)
	}
	for _, l := range c.Links() {
		if l.From != ClientNode && l.To != ClientNode && l.Chunks == 0 {
			t.Errorf("link %s carried nothing", l.Dir)
		}
		if l.From == "m2" && l.To == "m3" && l.Samples > 0 && l.Measured < ms(30) {
			t.Errorf("link m2->m3 held chunks %v, want >= 30ms", l.Measured)
		}
	}

	// Cut the leader off from its peers: the other two elect a leader.
	cut := time.Now()
	if err := c.Partition(leader, ""); err != nil {
		t.Fatal(err)
	}
	var next string
	for time.Since(cut) < 15*time.Second {
		for _, s := range Status(ctx, c.Client(), nil) {
			if s.Role == "leader" && s.Healthy {
				if id := s.ID; id != "" {
					next = s.Endpoint
				}
			}
		}
		if next != "" && next != c.Endpoints()[indexOf(c.Names(), leader)] {
			break
		}
		next = ""
		time.Sleep(50 * time.Millisecond)
	}
	if next == "" {
		t.Fatalf("no new leader %v after partitioning %s", time.Since(cut), leader)
	}
	t.Logf("new leader %s %v after partitioning %s", next, time.Since(cut), leader)
	if err := c.Heal(leader, ""); err != nil {
		t.Fatal(err)
	}
	if err := putRetry(cli, "after", "heal"); err != nil {
		t.Fatal(err)
	}
	ids := pids(c)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, ids, "")
}

func indexOf(names []string, n string) int {
	for i, x := range names {
		if x == n {
			return i
		}
	}
	return -1
}

func TestLinkErrors(t *testing.T) {
	for _, tc := range []struct {
		links map[wan.Dir]wan.Link
		want  string
	}{
		{map[wan.Dir]wan.Link{{From: "m1", To: "m9"}: {}}, `link m1->m9: no member "m9" in a 3-member cluster`},
		{map[wan.Dir]wan.Link{{From: "m1", To: "m1"}: {}}, "link m1->m1: a link joins two different members"},
		{map[wan.Dir]wan.Link{{From: "m1", To: "m2"}: {Delay: -ms(1)}}, "link m1->m2: delay -1ms is negative"},
		{map[wan.Dir]wan.Link{{From: ClientNode, To: ClientNode}: {}}, "link client->client: a link joins two different members"},
	} {
		err := Options{Members: 3, Links: tc.links}.Validate()
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// TestEmulatedTLS: with peer TLS, etcd checks that a peer's certificate
// names the address it connects from; through the link proxies that is
// still the member's own address, so the cluster forms, serves clients
// over TLS, and probes work.
func TestEmulatedTLS(t *testing.T) {
	t.Parallel()
	if err := labnet.Available(); err != nil {
		t.Skip(err)
	}
	c := start(t, Options{Members: 3, TLS: true, Links: symmetric(map[[2]string]time.Duration{{"m1", "m2"}: ms(2), {"m2", "m3"}: ms(2), {"m1", "m3"}: ms(2)})})
	cli := client(t, c.Client())
	if err := put(cli, "tls", "ok"); err != nil {
		t.Fatal(err)
	}
	if rtt, err := c.ProbeRTT(context.Background(), "m3", "m1"); err != nil || rtt < ms(4) {
		t.Fatalf("probe over TLS: %v %v", rtt, err)
	}
}

// TestEmulatedKeptRestart: a kept emulated cluster's peer URLs live in a
// namespace, so it restarts emulated (with pass-through links when none are
// given) and keeps its data; an emulated cluster cannot be made from data
// that was not.
func TestEmulatedKeptRestart(t *testing.T) {
	t.Parallel()
	if err := labnet.Available(); err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "kept")
	c := start(t, Options{Members: 3, DataDir: dir, KeepData: true, Links: symmetric(map[[2]string]time.Duration{{"m1", "m2"}: ms(1)})})
	if err := put(client(t, c.Client()), "persist", "yes"); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	c2 := start(t, Options{Members: 3, DataDir: dir, KeepData: true})
	if !c2.Emulated() {
		t.Fatal("kept emulated cluster restarted without emulation")
	}
	if got := get(t, client(t, c2.Client()), "persist"); got != "yes" {
		t.Fatalf("restarted cluster lost data: %q", got)
	}
	if err := c2.Stop(); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	c3 := start(t, Options{Members: 1, DataDir: plain, KeepData: true})
	if err := c3.Stop(); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{Members: 1, DataDir: plain, Links: map[wan.Dir]wan.Link{}})
	if !invalid.Is(err) || !strings.Contains(err.Error(), "made without network emulation; Links need a new data dir") {
		t.Fatalf("emulating a plain kept cluster: %v", err)
	}
}
