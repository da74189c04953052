package cluster

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/prometheus/client_golang/prometheus"
)

// metricsStatusTimeout bounds each member's answer when a scrape asks who
// leads.
const metricsStatusTimeout = time.Second

// Metrics is etcdlab's own view of a cluster it runs, as Prometheus
// metrics (docs/metrics.md): each member's process (running, stopped,
// started, exited), who leads and the leader changes seen from one scrape
// to the next, the faults injected, and on an emulated network each
// directed link's configuration and what it delivered. It reads
// everything at scrape time, asking each member for its status (within
// one second). Safe for concurrent use; Close releases its clients.
type Metrics struct {
	c     *Cluster
	descs clusterDescs

	mu      sync.Mutex // one scrape at a time: the LeaderWatch is not concurrent
	watch   *LeaderWatch
	last    Leader
	seen    bool
	changes int64
}

// NewMetrics returns the metrics of c, with one client per member for
// asking who leads; register them with a prometheus.Registry.
func NewMetrics(c *Cluster) (*Metrics, error) {
	names := map[string]string{}
	for i, ep := range c.Endpoints() {
		names[ep] = c.names[i]
	}
	w, err := NewLeaderWatch(c.Client(), names)
	if err != nil {
		return nil, err
	}
	return &Metrics{c: c, descs: newClusterDescs(), watch: w}, nil
}

// Close releases the clients.
func (m *Metrics) Close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watch.Close()
}

// Describe sends the descriptions of every metric Collect sends.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) { m.descs.describe(ch) }

// Collect reads the cluster and sends its metrics.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	d, c := &m.descs, m.c
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	counter := func(desc *prometheus.Desc, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	b2f := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}

	counts := c.Counts()
	c.mu.Lock()
	procs := append([]*child.Process(nil), c.procs...)
	c.mu.Unlock()
	for i, name := range c.names {
		up, stopped := false, false
		if i < len(procs) && procs[i] != nil {
			done, _ := procs[i].Exited()
			up = !done
			stopped = up && procs[i].ID().Stopped()
		}
		gauge(d.up, b2f(up), name)
		gauge(d.stopped, b2f(stopped), name)
		counter(d.starts, counts.Starts[name], name)
		counter(d.exits, counts.Exits[name], name)
	}
	for _, f := range []string{FaultKill, FaultPause, FaultResume, FaultRestart, FaultLink, FaultPartition, FaultHeal, FaultCPULimit, FaultCPUUnlimit, FaultDefrag, FaultDefragStop} {
		counter(d.faults, counts.Faults[f], f)
	}

	m.mu.Lock()
	l, ok := m.watch.Current(context.Background(), metricsStatusTimeout)
	if ok {
		if m.seen && l.ID != m.last.ID {
			m.changes++
		}
		m.last, m.seen = l, true
	}
	changes, term := m.changes, m.last.Term
	m.mu.Unlock()
	for _, name := range c.names {
		gauge(d.leader, b2f(ok && l.Name == name), name)
	}
	counter(d.leaderChanges, changes)
	if term > 0 {
		gauge(d.term, float64(term))
	}

	links := c.Links()
	sort.Slice(links, func(i, j int) bool { return links[i].Dir.String() < links[j].Dir.String() })
	for _, s := range links {
		from, to := s.From, s.To
		gauge(d.linkDelay, s.Link.Delay.Seconds(), from, to)
		gauge(d.linkJitter, s.Link.Jitter.Seconds(), from, to)
		gauge(d.linkRate, float64(s.Link.Rate), from, to)
		gauge(d.linkLoss, s.Link.Loss, from, to)
		gauge(d.linkPartitioned, b2f(s.Link.Partitioned), from, to)
		if s.Samples > 0 {
			gauge(d.linkHold, s.Measured.Seconds(), from, to)
		}
		counter(d.linkChunks, s.Chunks, from, to)
		counter(d.linkBytes, s.Bytes, from, to)
	}
}
