package clustertest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/member"
	clientv3 "go.etcd.io/etcd/client/v3"
)

func TestMain(m *testing.M) { os.Exit(member.RunTests(m)) }

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestKeys: keys written under a prefix are counted there and nowhere
// else, and NoKeys fails on the prefix that holds them only.
func TestKeys(t *testing.T) {
	t.Parallel()
	c := Start(t, cluster.Options{})
	if len(c.Names()) != 1 {
		t.Fatalf("members %v, want 1", c.Names())
	}
	c.PutKeys("/a/", 25)
	if n := c.Count("/a/"); n != 25 {
		t.Fatalf("count /a/ = %d, want 25", n)
	}
	if n := c.Count(""); n != 25 {
		t.Fatalf("count all = %d, want 25", n)
	}
	c.NoKeys("/b/")
	r := &recorder{TB: t}
	NoKeys(r, c.KV(), "/a/")
	if len(r.errors) != 1 {
		t.Fatalf("NoKeys on 25 keys reported %q", r.errors)
	}
}

// TestWaitHealthy: a killed and restarted follower is waited for until
// it is back and caught up; the others' writes in between are on it.
func TestWaitHealthy(t *testing.T) {
	t.Parallel()
	c := Start(t, cluster.Options{Members: 3})
	c.WaitHealthy(10 * time.Second)
	// A follower: killing the leader would make the writes below wait
	// for an election.
	victim := -1
	for i, s := range cluster.Status(context.Background(), c.Client(), nil) {
		if s.Role == "follower" {
			victim = i
		}
	}
	if victim < 0 {
		t.Fatal("no follower")
	}
	name := c.Names()[victim]
	if err := c.Kill(name); err != nil {
		t.Fatal(err)
	}
	c.PutKeys("/w/", 50)
	if c.healthy() {
		t.Fatalf("healthy with %s killed", name)
	}
	if err := c.Restart(name); err != nil {
		t.Fatal(err)
	}
	c.WaitHealthy(20 * time.Second)
	one := c.Client()
	one.Endpoints = one.Endpoints[victim : victim+1]
	cli, err := etcdclient.New(one)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := cli.Get(ctx, "/w/", clientv3.WithPrefix(), clientv3.WithCountOnly(), clientv3.WithSerializable())
	if err != nil || r.Count != 50 {
		t.Fatalf("%s serves %v keys (%v) after catching up, want 50", name, r, err)
	}
}

// TestWaitFor: a condition that comes is waited for, one that does not
// is reported after the timeout, not before.
func TestWaitFor(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(100 * time.Millisecond)
	WaitFor(t, 5*time.Second, "the clock", func() bool { return time.Now().After(at) })
	start := time.Now()
	if Eventually(150*time.Millisecond, func() bool { return false }) {
		t.Fatal("a false condition came true")
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("gave up after %v, before the timeout", d)
	}
}
