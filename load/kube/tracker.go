package kube

import (
	"sort"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/result"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// Milestone names, in the chain's order.
const (
	msReplicaSets = "replicasets created"
	msCreated     = "pods created"
	msScheduled   = "pods scheduled"
	msRunning     = "pods running"
	msReady       = "pods ready"
	msEndpoints   = "endpoints complete"
)

// tracker watches the chain through one apiserver's watch caches, as a
// client watching pods would: when each pod was first seen created,
// scheduled, running and ready, when every object of a stage existed, and
// pod startup latency (first seen → running seen). Its events come from
// the caches' goroutines. Safe for concurrent use.
type tracker struct {
	mu        sync.Mutex
	start     time.Time
	want      int // pods of the manifest
	rsWant    int
	epWant    map[string]int // service name → ready endpoints wanted
	pods      map[string]*podSeen
	counts    [4]int // created, scheduled, running, ready
	rs        map[string]bool
	epReady   map[string]int            // service → ready addresses in its Endpoints
	sliceRdy  map[string]map[string]int // service → slice → ready endpoints
	ms        map[string]time.Time
	startup   *hdrhistogram.Histogram
	done      chan struct{}
	closed    bool
	progress  func(ready, total int)
	lastReady int
}

type podSeen struct {
	at    [4]time.Time
	ready bool
}

func newTracker(api *apiserver, progress func(int, int)) *tracker {
	t := &tracker{pods: map[string]*podSeen{}, rs: map[string]bool{}, epReady: map[string]int{}, sliceRdy: map[string]map[string]int{},
		ms: map[string]time.Time{}, startup: load.NewHistogram(), done: make(chan struct{}), progress: progress, epWant: map[string]int{}}
	api.cache(resPods).handle(t.onPod)
	api.cache(resReplicaSets).handle(t.onRS)
	api.cache(resEndpoints).handle(t.onEndpoints)
	api.cache(resSlices).handle(t.onSlice)
	return t
}

// begin starts the clock: want pods from rsWant ReplicaSets, and the
// services (name → replicas) whose endpoints must fill.
func (t *tracker) begin(at time.Time, want, rsWant int, services map[string]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start, t.want, t.rsWant, t.epWant = at, want, rsWant, services
	t.check(at)
}

func (t *tracker) onPod(e watchEvent) {
	if e.kind == evDeleted {
		return
	}
	p := e.cur.obj.(*corev1.Pod)
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.pods[e.key]
	if s == nil {
		s = &podSeen{}
		t.pods[e.key] = s
	}
	reached := [4]bool{true, p.Spec.NodeName != "", p.Status.Phase == corev1.PodRunning, podReady(p)}
	for i, ok := range reached {
		if ok && s.at[i].IsZero() {
			s.at[i] = now
			t.counts[i]++
			if i == 2 {
				load.RecordLatency(t.startup, now.Sub(s.at[0]))
			}
		}
	}
	s.ready = reached[3]
	t.check(now)
	if t.progress != nil && t.counts[3] != t.lastReady && t.want > 0 {
		t.lastReady = t.counts[3]
		t.progress(min(t.counts[3], t.want), t.want)
	}
}

func (t *tracker) onRS(e watchEvent) {
	if e.kind != evAdded {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rs[e.key] = true
	t.check(time.Now())
}

func (t *tracker) onEndpoints(e watchEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.kind == evDeleted {
		delete(t.epReady, e.old.obj.GetName())
		return
	}
	n := 0
	for _, s := range e.cur.obj.(*corev1.Endpoints).Subsets { //nolint:staticcheck // Endpoints API
		n += len(s.Addresses)
	}
	t.epReady[e.cur.obj.GetName()] = n
	t.check(time.Now())
}

func (t *tracker) onSlice(e watchEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	o := e.cur.obj
	if o == nil {
		o = e.old.obj
	}
	svc := o.GetLabels()["kubernetes.io/service-name"]
	if t.sliceRdy[svc] == nil {
		t.sliceRdy[svc] = map[string]int{}
	}
	if e.kind == evDeleted {
		delete(t.sliceRdy[svc], o.GetName())
		return
	}
	n := 0
	for _, ep := range o.(*discoveryv1.EndpointSlice).Endpoints {
		if ep.Conditions.Ready != nil && *ep.Conditions.Ready {
			n++
		}
	}
	t.sliceRdy[svc][o.GetName()] = n
	t.check(time.Now())
}

// check records the milestones reached at now and closes done when every
// pod was ready and every service's endpoints complete; mu held.
func (t *tracker) check(now time.Time) {
	if t.start.IsZero() {
		return
	}
	mark := func(name string, ok bool) {
		if _, seen := t.ms[name]; ok && !seen {
			t.ms[name] = now
		}
	}
	mark(msReplicaSets, t.rsWant > 0 && len(t.rs) >= t.rsWant)
	for i, name := range []string{msCreated, msScheduled, msRunning, msReady} {
		mark(name, t.want > 0 && t.counts[i] >= t.want)
	}
	complete := true
	for svc, want := range t.epWant {
		slices := 0
		for _, n := range t.sliceRdy[svc] {
			slices += n
		}
		if t.epReady[svc] < want || slices < want {
			complete = false
		}
	}
	mark(msEndpoints, len(t.epWant) > 0 && complete)
	_, ready := t.ms[msReady]
	if ready && complete && !t.closed {
		t.closed = true
		close(t.done)
	}
}

// result returns the milestones (seconds from the start) and the time to
// Ready, 0 when not every pod became Ready.
func (t *tracker) result() ([]result.KubeMilestone, float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []result.KubeMilestone
	for name, at := range t.ms {
		out = append(out, result.KubeMilestone{Name: name, Seconds: at.Sub(t.start).Seconds()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seconds < out[j].Seconds })
	ttr := 0.0
	if at, ok := t.ms[msReady]; ok {
		ttr = at.Sub(t.start).Seconds()
	}
	return out, ttr
}

// startupP99 returns the pod startup p99 in seconds and how many pods it
// is over.
func (t *tracker) startupP99() (float64, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return float64(t.startup.ValueAtQuantile(99)) / 1e6, t.startup.TotalCount()
}
