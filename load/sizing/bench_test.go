package sizing

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/prometheus/client_golang/prometheus"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// scrapeEvery is how often the run's metrics are read.
const scrapeEvery = 50 * time.Millisecond

// pair is a verb and resource of etcd_requests_total.
type pair struct{ verb, resource string }

// snapshot is bench kube's etcd_requests_total at one moment.
type snapshot struct {
	at     time.Time
	counts map[pair]float64
}

// steadyWindow is what bench kube sent over its steady window: the
// requests per verb and resource, the window's length and the churns
// (deployments deleted and re-created) in it.
type steadyWindow struct {
	counts map[pair]float64
	window time.Duration
	churns int
	// sizes are the mean value bytes bench kube wrote per key segment
	// under /registry/ ("pods", "services/endpoints"), creates (version
	// 1) and later writes apart.
	sizes map[string]*sizeSeen
}

// sizeSeen sums the value sizes written under one key segment.
type sizeSeen struct{ creates, createBytes, updates, updateBytes float64 }

// measureSteady runs bench kube in steady mode on a 1-member lab cluster
// and returns its requests over a window that excludes the setup: the
// run's etcd_requests_total is read every 50 ms through its live metrics
// (Spec.Live: its counts are the whole run's, the manifest's creation
// included); the window starts just before the first quiet churn after
// every pod of the manifest was Ready (plus settle) and ends just before
// the last quiet churn of the run, so it holds whole churn periods, each
// with every effect of its churn.
func measureSteady(t *testing.T, s kube.Spec, settle time.Duration) steadyWindow {
	t.Helper()
	c := clustertest.Start(t, cluster.Options{Members: 1, BaseDir: clustertest.Tmpfs(t)})
	reg := prometheus.NewRegistry()
	live := load.NewLive(load.LiveOptions{Command: "sizing test"})
	reg.MustRegister(live)
	s.Live = live
	var mu sync.Mutex
	var ready time.Time
	s.Progress = func(r, total int) {
		mu.Lock()
		if r == total && ready.IsZero() {
			ready = time.Now()
		}
		mu.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var snaps []snapshot
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(scrapeEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			snaps = append(snaps, scrape(t, reg))
		}
	}()
	sizes := map[string]*sizeSeen{}
	wctx, wcancel := context.WithCancel(context.Background())
	wdone := make(chan struct{})
	root := s.Prefix + "/registry/"
	go func() {
		defer close(wdone)
		for resp := range c.KV().Watch(wctx, root, clientv3.WithPrefix()) {
			for _, ev := range resp.Events {
				if ev.Type != clientv3.EventTypePut {
					continue
				}
				seg := segment(strings.TrimPrefix(string(ev.Kv.Key), root))
				z := sizes[seg]
				if z == nil {
					z = &sizeSeen{}
					sizes[seg] = z
				}
				if ev.Kv.Version == 1 {
					z.creates++
					z.createBytes += float64(len(ev.Kv.Value))
				} else {
					z.updates++
					z.updateBytes += float64(len(ev.Kv.Value))
				}
			}
		}
	}()
	run, err := kube.Run(ctx, c.KV(), s)
	cancel()
	<-done
	wcancel()
	<-wdone
	if err != nil {
		t.Fatal(err)
	}
	if run.StoppedEarly != "" {
		t.Fatalf("bench kube stopped early: %s", run.StoppedEarly)
	}
	mu.Lock()
	settled := ready.Add(settle)
	mu.Unlock()
	if ready.IsZero() {
		t.Fatal("the manifest's pods were never all Ready")
	}
	// Churn i starts after the last snapshot where deployments' deletes
	// were below i. A churn is quiet when nothing but the heartbeats and
	// count polls (which never stop) moved in the second before it: the
	// setup's and the previous churn's effects (event backlogs included)
	// are over.
	churn := pair{"delete", "deployments"}
	var starts []int
	for i := 1; i < len(snaps); i++ {
		if snaps[i].counts[churn] > snaps[i-1].counts[churn] {
			starts = append(starts, i-1)
		}
	}
	quiet := func(i int) bool {
		j := i - int(time.Second/scrapeEvery)
		if j < 0 {
			return false
		}
		for k, v := range snaps[i].counts {
			background := k.verb == "listWithCount" || k == (pair{"update", "leases"}) || k == (pair{"update", "nodes"})
			if !background && v != snaps[j].counts[k] {
				return false
			}
		}
		return true
	}
	var ok []int
	for _, i := range starts {
		if snaps[i].at.After(settled) && quiet(i) {
			ok = append(ok, i)
		}
	}
	if len(ok) < 2 {
		t.Fatalf("fewer than two quiet churns after the setup settled (%d churns, %d quiet, ready at %s): no whole churn period to compare",
			len(starts), len(ok), ready.Format(time.StampMilli))
	}
	a, b := snaps[ok[0]], snaps[ok[len(ok)-1]]
	w := steadyWindow{counts: map[pair]float64{}, window: b.at.Sub(a.at), sizes: sizes}
	for _, i := range starts {
		if i >= ok[0] && i < ok[len(ok)-1] {
			w.churns++
		}
	}
	for k, v := range b.counts {
		if d := v - a.counts[k]; d > 0 {
			w.counts[k] = d
		}
	}
	return w
}

// segment is a key's resource segment under /registry/: "pods",
// "services/specs".
func segment(rest string) string {
	parts := strings.Split(rest, "/")
	if parts[0] == "services" && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// scrape reads etcd_requests_total from the run's live metrics.
func scrape(t *testing.T, reg *prometheus.Registry) snapshot {
	s := snapshot{at: time.Now(), counts: map[pair]float64{}}
	mfs, err := reg.Gather()
	if err != nil {
		t.Errorf("gather: %v", err)
		return s
	}
	for _, mf := range mfs {
		if mf.GetName() != kube.MetricEtcdRequests {
			continue
		}
		for _, m := range mf.GetMetric() {
			var p pair
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "operation":
					p.verb = l.GetValue()
				case "resource":
					p.resource = l.GetValue()
				}
			}
			s.counts[p] = m.GetCounter().GetValue()
		}
	}
	return s
}
