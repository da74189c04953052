package profile

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// readMethods are the only gRPC methods profile may call.
func readMethods() map[string]bool {
	return map[string]bool{"Range": true, "Status": true, "MemberList": true, "LeaseLeases": true, "LeaseTimeToLive": true}
}

// TestRunReadOnly profiles an idle cluster with keys and leases: the
// revision does not move, the member counted only read methods, and the
// census found the keys per prefix with their sizes and the leases.
func TestRunReadOnly(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{Members: 1})
	cli := c.KV()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := range 10 {
		if _, err := cli.Put(ctx, fmt.Sprintf("/registry/pods/default/p%d", i), strings.Repeat("x", 200)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 3 {
		l, err := cli.Grant(ctx, 120)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Put(ctx, fmt.Sprintf("/locks/l%d", i), "v", clientv3.WithLease(l.ID)); err != nil {
			t.Fatal(err)
		}
	}
	url := c.State().MetricsURLs[0]
	scrape := func() *metrics.Snapshot {
		s, err := metrics.Scrape(ctx, url, nil, 3*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rev := func() int64 {
		r, err := cli.Get(ctx, "x")
		if err != nil {
			t.Fatal(err)
		}
		return r.Header.Revision
	}
	rev0 := rev()
	before := scrape()
	var log bytes.Buffer
	start := time.Now()
	p, err := Run(ctx, Options{Conn: c.Client(), Window: time.Second, Census: true, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	after := scrape()
	if r := rev(); r != rev0 {
		t.Errorf("revision %d after profile, %d before: it wrote", r, rev0)
	}
	for method := range metrics.IncreaseBy(before, after, metrics.GRPCHandled, metrics.GRPCMethodLabel, nil) {
		if !readMethods()[method] {
			t.Errorf("profile called %s", method)
		}
	}
	if took > 15*time.Second {
		t.Errorf("a 1 s window took %s", took)
	}
	if err := p.Validate(); err != nil && len(p.Operations) > 0 {
		t.Error(err)
	}
	k := p.Keyspace
	if k == nil || k.Keys != 13 {
		t.Fatalf("keyspace %+v, want 13 keys", k)
	}
	var pods *replay.PrefixShape
	for i, s := range k.Prefixes {
		if s.Prefix == "/registry/" {
			t.Errorf("prefixes overlap: %+v", k.Prefixes)
		}
		if s.Prefix == "/registry/pods/" {
			pods = &k.Prefixes[i]
		}
	}
	if pods == nil || pods.Keys != 10 || pods.ValueBytes != 200 || pods.KeyBytes != float64(len("/registry/pods/default/p0")) || pods.Resource != "pods" {
		t.Errorf("pods' prefix %+v in %+v", pods, k.Prefixes)
	}
	if l := p.Leases; l == nil || l.Count != 3 || l.TTL.D() != 120*time.Second || l.KeysPerLease != 1 {
		t.Errorf("leases %+v, want 3 of 120 s with a key each", l)
	}
	if !strings.Contains(strings.Join(p.Unattributed, "\n"), "no kube-apiserver metrics") {
		t.Errorf("unattributed %q does not say reads per resource are unknown", p.Unattributed)
	}
}

// TestRunCensusBudget: a census past its request budget stops, says so in
// the profile and on the log, and is no error.
func TestRunCensusBudget(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{Members: 1})
	c.PutKeys("/b/", 10)
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Run(ctx, Options{Conn: c.Client(), Window: 100 * time.Millisecond, Census: true, CensusMaxRequests: 3, CensusPage: 2, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := "the census stopped after 3 requests (its budget): 6 keys counted"
	if !strings.Contains(strings.Join(p.Unattributed, "\n"), want) || !strings.Contains(log.String(), want+"; raise --census-max-requests") {
		t.Errorf("unattributed %q, log %q: want %q", p.Unattributed, log.String(), want)
	}
	if p.Keyspace == nil || p.Keyspace.Keys != 6 {
		t.Errorf("keyspace %+v, want the 6 keys counted", p.Keyspace)
	}
}
