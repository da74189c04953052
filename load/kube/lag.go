package kube

import (
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
)

// lagTracker measures watch delivery lag: from a write's response (when
// the writer learnt its mod_revision) to the event of that revision at
// each watcher. An event can reach a watcher before the writer's response;
// such events count as 0 lag ("early"). Safe for concurrent use.
type lagTracker struct {
	mu      sync.Mutex
	pending map[lagKey]*lagEntry
	hist    *hdrhistogram.Histogram
	n       int64
	early   int64
}

type lagKey struct {
	key string
	rev int64
}

type lagEntry struct {
	wrote   time.Time
	written bool
	early   int // events seen before the write's response
	left    int // watchers still to see it, once written
}

func newLagTracker() *lagTracker {
	return &lagTracker{pending: map[lagKey]*lagEntry{}, hist: load.NewHistogram()}
}

// wrote notes that the write of key at rev got its response at at, and
// that watchers watch caches will see its event.
func (l *lagTracker) wrote(key string, rev int64, at time.Time, watchers int) {
	k := lagKey{key, rev}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.pending[k]
	if e == nil {
		e = &lagEntry{}
		l.pending[k] = e
	}
	e.wrote, e.written = at, true
	for range e.early {
		load.RecordLatency(l.hist, 0)
		l.n++
		l.early++
	}
	e.left = watchers - e.early
	e.early = 0
	if e.left <= 0 {
		delete(l.pending, k)
	}
}

// seen notes a watcher's event of key at rev arriving at at.
func (l *lagTracker) seen(key string, rev int64, at time.Time) {
	k := lagKey{key, rev}
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.pending[k]
	if e == nil {
		l.pending[k] = &lagEntry{early: 1}
		return
	}
	if !e.written {
		e.early++
		return
	}
	load.RecordLatency(l.hist, at.Sub(e.wrote))
	l.n++
	if e.left--; e.left <= 0 {
		delete(l.pending, k)
	}
}

// summary returns the lag distribution and how many events were matched.
func (l *lagTracker) summary() (*result.Latency, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return nil, 0
	}
	s := load.SummarizeHistogram(l.hist)
	return &s, l.n
}
