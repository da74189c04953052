package load

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/result"
)

// leaderKill is one run of 50 clients on 10 connections to every member of
// a 3-member cluster, open loop at 500 writes/s, during which the leader
// is killed; election is the time from the kill until another member said
// it led, as `cluster fault kill --wait-leader` measures it.
type leaderKill struct {
	run      result.Run
	election time.Duration
	killed   string
}

func killLeaderDuring(t *testing.T, c *clustertest.Cluster, tr TransportKind, pin bool, prefix string) leaderKill {
	t.Helper()
	s, err := Open(context.Background(), Options{Conn: c.Client(), Endpoints: c.Endpoints(), Conns: 10, Transport: tr, Pin: pin}, putLoad(prefix, 1000))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	names := map[string]string{}
	for i, ep := range c.Endpoints() {
		names[ep] = c.Names()[i]
	}
	lw, err := cluster.NewLeaderWatch(c.Client(), names)
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	var out leaderKill
	elected := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		old, ok := lw.Current(ctx, time.Second)
		if !ok {
			elected <- errNoLeader
			return
		}
		out.killed = old.Name
		killed := time.Now()
		if err := c.Kill(old.Name); err != nil {
			elected <- err
			return
		}
		_, out.election, err = lw.WaitChange(ctx, old, killed)
		if back := time.Since(killed); err == nil && back > out.election+time.Second {
			err = testError("WaitChange returned " + back.String() + " after the kill, having found the leader after " + out.election.String())
		}
		elected <- err
	}()
	out.run, err = s.Run(context.Background(), Spec{Clients: 50, Rate: 500, Duration: 4 * time.Second, RequestTimeout: 10 * time.Second, Canary: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-elected; err != nil {
		t.Fatal(err)
	}
	return out
}

type testError string

func (e testError) Error() string { return string(e) }

const errNoLeader = testError("no leader before the kill")

// unreachable counts requests that failed because their connection
// could not reach its member.
func unreachable(r result.Run) int64 {
	var n int64
	for msg, k := range r.ErrorMessages {
		if strings.Contains(msg, "connection refused") || strings.Contains(msg, "connecting") || strings.Contains(msg, "EOF") ||
			strings.Contains(msg, "connection reset") || strings.Contains(msg, "sent the connection away") || strings.Contains(msg, "error reading") {
			n += k
		}
	}
	return n
}

// TestLeaderKill kills the leader under open-loop load on every member:
// the cluster's unavailability (from canaries) matches the election time
// that `cluster fault kill --wait-leader` reports, whatever the clients
// went through; with failover, requests stop going to the dead member once
// its connections broke, while pinned connections (etcd benchmark v3.6)
// keep failing for the rest of the run.
func TestLeaderKill(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, cluster.Options{Members: 3})
	for i, tc := range []struct {
		tr  TransportKind
		pin bool
	}{{Wire, false}, {GRPC, false}, {Wire, true}} {
		k := killLeaderDuring(t, c, tc.tr, tc.pin, "/k"+string(rune('a'+i))+"/")
		r := k.run
		cu, cl := r.ClusterUnavailability, r.ClientUnavailability
		t.Logf("%s pin=%v: killed %s, new leader after %v; cluster %+v; client %+v; unreachable errors %d of %v",
			tc.tr, tc.pin, k.killed, k.election, cu, cl, unreachable(r), r.Errors)
		if r.Canary == nil || cu == nil {
			t.Fatalf("%s pin=%v: no cluster unavailability measured (canary %+v)", tc.tr, tc.pin, r.Canary)
		}
		if d := math.Abs(cu.LongestSeconds - k.election.Seconds()); d > 1 {
			t.Errorf("%s pin=%v: cluster unavailable %.2fs, new leader after %.2fs: off by %.2fs", tc.tr, tc.pin, cu.LongestSeconds, k.election.Seconds(), d)
		}
		if cl == nil {
			t.Errorf("%s pin=%v: no client-observed unavailability", tc.tr, tc.pin)
		}
		switch n := unreachable(r); {
		case !tc.pin && n > 50:
			t.Errorf("%s: %d requests went to the dead member with failover", tc.tr, n)
		case tc.pin && n < 200:
			t.Errorf("pinned: only %d requests failed on the dead member's connections", n)
		}
		if err := c.Restart(k.killed); err != nil {
			t.Fatal(err)
		}
		c.WaitHealthy(20 * time.Second)
	}
}
