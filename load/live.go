package load

import (
	"sync"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
)

// LiveOptions say what a Live reports about the process it serves. It is a
// plain value.
type LiveOptions struct {
	// Command is etcdlab_run_info's command label: "bench", "experiment",
	// "cluster up".
	Command string
	// AgentIndex and AgentCount place this process among the load
	// generators of one distributed run (etcdlab_agent_index,
	// etcdlab_agent_count). A process that runs alone is agent 0 of 1,
	// which is also what an AgentCount of 0 means.
	AgentIndex, AgentCount int
}

// Live shows the load engine's runs as Prometheus metrics while they run
// (docs/metrics.md has the names). It is a prometheus.Collector that reads
// the recorders of the runs in progress at scrape time, under their shard
// locks, so that recording a request costs nothing more; the requests of
// finished runs stay in its totals, so its counters and histograms only
// grow for the life of the Live (sweeps, warm-ups, iterations, the cells
// of an experiment). A Session run tracks itself when Spec.Live is set;
// workloads with their own Recorder call Track.
//
// Safe for concurrent use: runs start and end while Prometheus scrapes.
type Live struct {
	o     LiveOptions
	descs liveDescs

	mu      sync.Mutex
	run     string // what Begin named, "" when nothing is named
	depth   int    // Begin calls not ended
	sources map[*liveSource]struct{}
	totals  map[string]*liveOp // finished runs' requests by operation name
	// attached are collectors a running workload added (Attach).
	attached map[*attachment]struct{}
	scratch  []*hdrhistogram.Histogram
}

// liveSource is one run in progress as Live reads it.
type liveSource struct {
	rec  *recorder
	ops  []string
	rate float64
	// inFlight returns the requests sent and not answered yet; nil when
	// the run cannot tell.
	inFlight func() int64
}

// NewLive returns a Live with nothing recorded yet; register it with a
// prometheus.Registry.
func NewLive(o LiveOptions) *Live {
	if o.AgentCount <= 0 {
		o.AgentIndex, o.AgentCount = 0, 1
	}
	return &Live{o: o, descs: newLiveDescs(), sources: map[*liveSource]struct{}{}, totals: map[string]*liveOp{},
		attached: map[*attachment]struct{}{}}
}

// attachment is one Attach call's collector.
type attachment struct{ c prometheus.Collector }

// Attach adds c's metrics to the Live's until the returned function is
// called: a workload's own view of what it sends, in the names of the
// system it emulates (load/kube's kube-apiserver storage metrics). They
// are unchecked (the Live does not describe them), so a pedantic registry
// refuses them; a plain prometheus.Registry serves them. Their values
// vanish with detach, as a restarted process's would.
func (l *Live) Attach(c prometheus.Collector) (detach func()) {
	a := &attachment{c: c}
	l.mu.Lock()
	l.attached[a] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.attached, a)
			l.mu.Unlock()
		})
	}
}

// Begin names the run in progress (etcdlab_run_info's run label) until the
// returned function is called. Calls nest, and the outermost name stays:
// an experiment names its cell, and the bench runs inside it keep that
// name instead of their own.
func (l *Live) Begin(run string) (end func()) {
	l.mu.Lock()
	if l.depth == 0 {
		l.run = run
	}
	l.depth++
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			if l.depth--; l.depth == 0 {
				l.run = ""
			}
			l.mu.Unlock()
		})
	}
}

// Track shows rec's requests (operation i named ops[i]) until the returned
// function is called, which adds them to the totals; rec must not record
// after that. inFlight, if set, returns the requests sent and not answered
// yet (etcdlab_requests_in_flight is left out while a tracked run cannot
// tell). It is for workloads that send their own requests (load/kube);
// Session runs track themselves.
func (l *Live) Track(rec *Recorder, ops []string, inFlight func() int64) (stop func()) {
	return l.track(&liveSource{rec: rec.r, ops: ops, inFlight: inFlight})
}

// track adds a run in progress.
func (l *Live) track(s *liveSource) (stop func()) {
	l.mu.Lock()
	l.sources[s] = struct{}{}
	l.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			for name, op := range l.snapshot(s) {
				l.total(name).add(op)
			}
			delete(l.sources, s)
		})
	}
}

// total returns the totals of an operation, creating them. l.mu is held.
func (l *Live) total(name string) *liveOp {
	t := l.totals[name]
	if t == nil {
		t = newLiveOp()
		l.totals[name] = t
	}
	return t
}

// Describe sends the descriptions of every metric Collect sends.
func (l *Live) Describe(ch chan<- *prometheus.Desc) { l.descs.describe(ch) }

// Collect sends the metrics: the totals of finished runs plus what the
// runs in progress recorded so far.
func (l *Live) Collect(ch chan<- prometheus.Metric) {
	l.mu.Lock()
	ops := make(map[string]*liveOp, len(l.totals))
	for name, t := range l.totals {
		ops[name] = t.clone()
	}
	var rate float64
	var inFlight int64
	known := true
	for s := range l.sources {
		for name, op := range l.snapshot(s) {
			if ops[name] == nil {
				ops[name] = newLiveOp()
			}
			ops[name].add(op)
		}
		rate += s.rate
		if s.inFlight == nil {
			known = false
		} else {
			inFlight += s.inFlight()
		}
	}
	run := l.run
	attached := make([]prometheus.Collector, 0, len(l.attached))
	for a := range l.attached {
		attached = append(attached, a.c)
	}
	l.mu.Unlock()
	for _, c := range attached {
		c.Collect(ch)
	}

	d := &l.descs
	for name, op := range ops {
		op.collect(d, name, ch)
	}
	if known {
		ch <- prometheus.MustNewConstMetric(d.inFlight, prometheus.GaugeValue, float64(inFlight))
	}
	ch <- prometheus.MustNewConstMetric(d.target, prometheus.GaugeValue, rate)
	ch <- prometheus.MustNewConstMetric(d.agentIndex, prometheus.GaugeValue, float64(l.o.AgentIndex))
	ch <- prometheus.MustNewConstMetric(d.agentCount, prometheus.GaugeValue, float64(l.o.AgentCount))
	if run != "" {
		ch <- prometheus.MustNewConstMetric(d.runInfo, prometheus.GaugeValue, 1, l.o.Command, run)
	}
}
