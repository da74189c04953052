package clustertest

import (
	"context"
	"fmt"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Count returns the number of keys under prefix ("" counts every key).
func (c *Cluster) Count(prefix string) int64 {
	c.t.Helper()
	return Count(c.t, c.KV(), prefix)
}

// PutKeys writes n keys under prefix, prefix+"000000" onwards, each with a
// short value.
func (c *Cluster) PutKeys(prefix string, n int) {
	c.t.Helper()
	PutKeys(c.t, c.KV(), prefix, n)
}

// NoKeys fails the test (without stopping it) if any key is left under
// prefix.
func (c *Cluster) NoKeys(prefix string) {
	c.t.Helper()
	NoKeys(c.t, c.KV(), prefix)
}

// Count returns the number of keys under prefix on cli's cluster (""
// counts every key); a failed request fails the test.
func Count(t testing.TB, cli *clientv3.Client, prefix string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	r, err := cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		t.Fatalf("count keys under %q: %v", prefix, err)
	}
	return r.Count
}

// PutKeys writes n keys under prefix on cli's cluster, prefix+"000000"
// onwards; a failed request fails the test.
func PutKeys(t testing.TB, cli *clientv3.Client, prefix string, n int) {
	t.Helper()
	for i := range n {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		_, err := cli.Put(ctx, fmt.Sprintf("%s%06d", prefix, i), "v")
		cancel()
		if err != nil {
			t.Fatalf("put key %d under %q: %v", i, prefix, err)
		}
	}
}

// NoKeys fails the test (without stopping it) if cli's cluster holds any
// key under prefix.
func NoKeys(t testing.TB, cli *clientv3.Client, prefix string) {
	t.Helper()
	if n := Count(t, cli, prefix); n != 0 {
		t.Errorf("%d keys left under %q, want none", n, prefix)
	}
}
