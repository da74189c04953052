package series

import (
	"slices"
	"time"

	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// member is one member's recording. It is owned by the goroutine that
// scrapes the member until Stop has waited for that goroutine; Stop reads
// it afterwards.
type member struct {
	index    int
	name     string
	url      string
	interval time.Duration

	prev   *metrics.Snapshot // the last successful scrape
	prevIO *ioSample         // the last /proc/PID/io reading

	// spans are the points so far, each of per intervals; pending
	// gathers the intervals of the next one. per doubles whenever spans
	// would exceed result.MaxServerPoints, so every point but the last
	// covers the same time.
	spans       []span
	pending     *span
	per         int
	total       span // every interval merged, whatever downsampling did
	downsampled bool
	codes       map[string]float64 // unary RPCs over the run that did not end OK, by code
	methods     map[string]float64 // unary RPCs over the run, by method
	watchEvents float64            // events sent to watchers over the run
	versions    []string

	errors     int64
	firstErr   string
	lastFailed bool // the latest scrape failed
}

// fail counts a scrape that failed.
func (m *member) fail(err error) {
	m.errors++
	if m.firstErr == "" {
		m.firstErr = err.Error()
	}
}

// observe takes a successful scrape (and, for a member etcdlab started, a
// /proc reading taken with it) and closes the interval since the previous
// one.
func (m *member) observe(s *metrics.Snapshot, io *ioSample) {
	for _, v := range s.LabelValues(metrics.ServerVersion, metrics.ServerVersionLabel) {
		if !slices.Contains(m.versions, v) {
			m.versions = append(m.versions, v)
		}
	}
	prev, prevIO := m.prev, m.prevIO
	m.prev = s
	if io != nil {
		m.prevIO = io
	}
	if prev == nil {
		return
	}
	before := prev
	if restarted(prev, s) {
		before = nil // its counters began again from zero
	}
	sp := derive(before, s, prev.At, m.interval)
	sp.io = ioBetween(prevIO, io)
	for code, n := range grpcCodes(before, s) {
		sp.grpc += n
		if code != "OK" {
			sp.grpcErrors += n
			if m.codes == nil {
				m.codes = map[string]float64{}
			}
			m.codes[code] += n
		}
	}
	for method, n := range metrics.IncreaseBy(before, s, metrics.GRPCHandled, metrics.GRPCMethodLabel, map[string]string{metrics.GRPCTypeLabel: "unary"}) {
		if m.methods == nil {
			m.methods = map[string]float64{}
		}
		m.methods[method] += n
	}
	if n, ok := metrics.Increase(before, s, metrics.WatchEventsSent); ok {
		m.watchEvents += n
	}
	m.total = merge(m.total, sp)
	if !m.mergeShort(sp) {
		m.add(sp)
	}
	m.total.cpuMax = max(m.total.cpuMax, m.lastCPUMax())
}

// lastCPUMax is the highest CPU interval of the latest point (which a
// short interval may have raised).
func (m *member) lastCPUMax() float64 {
	if m.pending != nil {
		return m.pending.cpuMax
	}
	if len(m.spans) > 0 {
		return m.spans[len(m.spans)-1].cpuMax
	}
	return 0
}

// add adds one interval's span to the points, merging intervals per
// point as downsampling requires.
func (m *member) add(sp span) {
	if m.per == 0 {
		m.per = 1
	}
	if m.pending != nil {
		sp = merge(*m.pending, sp)
		m.pending = nil
	}
	if sp.n < m.per {
		m.pending = &sp
		return
	}
	m.spans = append(m.spans, sp)
	if len(m.spans) > result.MaxServerPoints {
		if len(m.spans)%2 == 1 { // the odd last one is half of a new point
			last := m.spans[len(m.spans)-1]
			m.pending = &last
			m.spans = m.spans[:len(m.spans)-1]
		}
		m.spans = halve(m.spans)
		m.per *= 2
		m.downsampled = true
	}
}

// points are the spans and the pending one.
func (m *member) points() []span {
	if m.pending == nil {
		return m.spans
	}
	return append(slices.Clip(m.spans), *m.pending)
}

// restarted reports whether the member's process changed between two
// scrapes (its start time did).
func restarted(before, after *metrics.Snapshot) bool {
	b, ok1 := before.Gauge(metrics.ProcessStartTime)
	a, ok2 := after.Gauge(metrics.ProcessStartTime)
	return ok1 && ok2 && a != b
}

// mergeShort merges an interval shorter than half the interval into the
// point before it and reports whether it did (there was one). Such an
// interval follows a scrape that took most of an interval, or is the last
// one, closed by Stop soon after a tick: its rates would be noisy (CPU
// time moves in 10 ms ticks) and its point would crowd the one before.
func (m *member) mergeShort(sp span) bool {
	if sp.seconds >= m.interval.Seconds()/2 {
		return false
	}
	last := m.pending
	if last == nil {
		if len(m.spans) == 0 {
			return false
		}
		last = &m.spans[len(m.spans)-1]
	}
	merged := merge(*last, sp)
	merged.cpuMax = max(last.cpuMax, merged.cpuSeconds/merged.seconds)
	*last = merged
	return true
}

// series is the member's recording as a result.MemberSeries.
func (m *member) series() result.MemberSeries {
	ms := result.MemberSeries{Name: m.name, MetricsURL: m.url, Summary: m.total.summary(), ScrapeErrors: m.errors, FirstError: m.firstErr}
	ms.Summary.GRPCErrorsByCode, ms.Summary.GRPCByMethod, ms.Summary.WatchEventsSent = m.codes, m.methods, m.watchEvents
	for _, sp := range m.points() {
		ms.Points = append(ms.Points, sp.point())
	}
	return ms
}
