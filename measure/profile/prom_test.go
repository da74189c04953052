package profile

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/promtest"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/promhist"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// putAt puts at rate per second for d (paced by a ticker: load, not a
// wait on a condition).
func putAt(t *testing.T, cli *clientv3.Client, rate int, d time.Duration) {
	t.Helper()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := cli.Put(ctx, fmt.Sprintf("/p/k%d", i%50), "v")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunPrometheus: a member whose put rate goes from 10/s to 60/s under
// a real Prometheus; the profile's series holds the step up, and the put
// row's rate is the span's mean with its PromQL in From.
func TestRunPrometheus(t *testing.T) {
	c := clustertest.Start(t, cluster.Options{Members: 1})
	url := c.State().MetricsURLs[0]
	prom := promtest.Start(t, []string{promtest.HostPort(t, url)})
	cli := c.KV()
	start := time.Now()
	putAt(t, cli, 10, 12*time.Second)
	putAt(t, cli, 60, 12*time.Second)
	since := time.Since(start).Truncate(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Run(ctx, Options{Conn: c.Client(), Window: 500 * time.Millisecond,
		Prometheus: promhist.Options{URL: prom, Since: since, Step: time.Second, RateWindow: 3 * time.Second, Selector: `job="etcd"`}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Series
	if s == nil || len(s.Points) < 15 {
		t.Fatalf("series %+v (unattributed %q)", s, p.Unattributed)
	}
	third := len(s.Points) / 3
	mean := func(pts []replay.Point) float64 {
		var v float64
		for _, pt := range pts {
			v += pt.Ops[replay.OpPut]
		}
		return v / float64(len(pts))
	}
	early, late := mean(s.Points[:third]), mean(s.Points[len(s.Points)-third:])
	if early < 4 || early > 20 || late < 40 || late > 80 {
		t.Errorf("put rate %.1f/s early and %.1f/s late, want about 10 and 60: %+v", early, late, s.Points)
	}
	for _, pt := range s.Points {
		if pt.Rate < pt.Ops[replay.OpPut] {
			t.Errorf("point %+v: total below puts", pt)
		}
	}
	var put *replay.Operation
	for i := range p.Operations {
		if p.Operations[i].Op == replay.OpPut {
			put = &p.Operations[i]
		}
	}
	if put == nil || put.Rate < 15 || put.Rate > 50 || !strings.Contains(put.From, "rate(grpc_server_handled_total") {
		t.Errorf("put row %+v, want the span's mean (about 35/s) from PromQL", put)
	}
	if p.Source.Since.D() != since || !strings.Contains(strings.Join(p.Source.Sources, ","), "prometheus") {
		t.Errorf("source %+v", p.Source)
	}
}
