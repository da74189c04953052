package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/cgroup"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/result"
)

// electionWait bounds the wait for a new leader after a fault on the
// leader; electionGrace is how long finish still waits for elections in
// progress when the run has ended.
const (
	electionWait  = 30 * time.Second
	electionGrace = 5 * time.Second
)

// step is one timed action of a timeline: a fault, or the undo its For
// asks for.
type step struct {
	at       time.Duration
	action   string
	target   string        // as written: a member, leader or follower; an upgrade's etcd
	prepared []string      // the fault's arguments once prepared (prepare), nil when it has no Prepare
	args     []string      // the fault's arguments after the member
	fault    int           // the fault's index
	undo     bool          // the undo of fault's action, on the member it hit
	after    time.Duration // an undo's For: at least this long after the fault was applied
}

// timeline applies a fault timeline to a cluster during one cell's
// measured run. start may be called from any goroutine (bench's
// BeginRun), more than once (only the first counts); finish is called
// once, after the run, on the cell's goroutine.
type timeline struct {
	c     *cluster.Cluster
	steps []step

	once    sync.Once
	started chan struct{} // closed by the first start
	cancel  context.CancelFunc
	done    chan struct{} // closed when the steps' goroutine returns

	// long are the long-running faults in progress (longfault.go);
	// longMu runs them one at a time, under longCtx, which ends with the
	// cell's context or when finish gives up waiting.
	long       sync.WaitGroup
	longMu     sync.Mutex
	longCtx    context.Context
	longCancel context.CancelFunc

	mu          sync.Mutex
	events      []result.FaultEvent
	elect       sync.WaitGroup // election watches
	electCtx    context.Context
	electCancel context.CancelFunc
	leader      string // the member "leader" resolved to last
	// faulted holds the members each fault left broken (by fault name),
	// until its undo.
	faulted map[string]map[string]bool
	// skip is why a fault cannot be injected on this machine (no cgroup
	// to write), from the first such error.
	skip string
}

// unavailable is why a fault could not be injected here, "" when every
// fault could.
func (t *timeline) unavailable() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.skip
}

// leaderHit is the member the timeline's last "leader" step hit, "" when
// none did.
func (t *timeline) leaderHit() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leader
}

func newTimeline(c *cluster.Cluster, faults []Fault) *timeline {
	t := &timeline{c: c, started: make(chan struct{}), done: make(chan struct{}), faulted: map[string]map[string]bool{}}
	t.electCtx, t.electCancel = context.WithCancel(context.Background())
	for i, f := range faults {
		action, target := f.Action()
		t.steps = append(t.steps, step{at: f.At.D(), action: action, target: target, args: f.Args(), fault: i})
		if f.For > 0 {
			undo := about(action).Undo
			t.steps = append(t.steps, step{at: f.At.D() + f.For.D(), action: undo, target: target, fault: i, undo: true, after: f.For.D()})
		}
	}
	sort.SliceStable(t.steps, func(i, j int) bool { return t.steps[i].at < t.steps[j].at })
	return t
}

// start begins the timeline now (the measured run's start).
func (t *timeline) start(ctx context.Context) {
	t.once.Do(func() {
		t.longCtx, t.longCancel = context.WithCancel(ctx)
		ctx, t.cancel = context.WithCancel(ctx)
		close(t.started)
		go t.run(ctx, time.Now())
	})
}

// run applies each step at its time until ctx ends.
func (t *timeline) run(ctx context.Context, began time.Time) {
	defer close(t.done)
	hit := map[int]string{}        // fault index → the member it hit
	applied := map[int]time.Time{} // fault index → when
	for i, s := range t.steps {
		when := began.Add(s.at)
		if at, ok := applied[s.fault]; ok && s.undo && at.Add(s.after).After(when) {
			when = at.Add(s.after) // resolving the target made the fault late
		}
		select {
		case <-ctx.Done():
			for _, s := range t.steps[i:] {
				target := s.target
				if m, ok := hit[s.fault]; ok && s.undo {
					target = m
				}
				t.record(result.FaultEvent{AtSeconds: s.at.Seconds(), Action: s.action, Target: target, Error: "not applied: the run ended before"})
			}
			return
		case <-time.After(time.Until(when)):
		}
		var name, detail string
		var err error
		a := about(s.action)
		switch m, ok := hit[s.fault]; {
		case a.Etcd, a.OnCluster():
			name = s.target
		case ok && s.undo:
			name = m
		default:
			name, detail, err = t.resolve(ctx, s.target, isUndo(s.action))
		}
		ev := result.FaultEvent{AtSeconds: s.at.Seconds(), Time: time.Now().UTC(), Action: s.action, Target: cmp(name, s.target), Detail: detail}
		idx := t.record(ev)
		if err == nil && a.LongRunning() {
			// In a goroutine of its own, so that later steps keep their
			// times.
			hit[s.fault] = name
			t.long.Add(1)
			go t.runLong(idx, s, name)
			continue
		}
		if err == nil {
			hit[s.fault] = name
			applied[s.fault], err = t.apply(ctx, idx, s.action, name, s.args...)
		}
		if err != nil {
			t.update(idx, func(e *result.FaultEvent) { e.Error = oneLine(err) })
			// A fault this machine cannot inject at all (a cgroup the
			// lab cannot write): an incident that needs it is skipped
			// with the reason, not failed.
			var u *cgroup.UnavailableError
			if errors.As(err, &u) {
				t.mu.Lock()
				t.skip = cmp(t.skip, u.Error())
				t.mu.Unlock()
			}
		}
	}
}

func isUndo(action string) bool { return about(action).Undoes != "" }

// faultRequest is what a step gives its fault: the member (or etcd) it
// resolved to and its arguments; a fault of the cluster's own gets its
// arguments alone (its target is ClusterTarget).
func faultRequest(a cluster.About, name string, args []string) cluster.Request {
	if a.OnCluster() {
		return cluster.Request{Args: slices.Clone(args)}
	}
	return cluster.Request{Args: append([]string{name}, args...)}
}

// about describes the fault called action; the spec's check made sure it
// is one the registry has.
func about(action string) cluster.About {
	if f, err := cluster.LookupFault(action); err == nil {
		return f.About()
	}
	return cluster.About{Name: action}
}

// resolve turns a target into a member name: "leader" is the leader now
// (for an undo, the member an earlier leader step hit), "follower" a
// member that is not the leader and not already faulted.
func (t *timeline) resolve(ctx context.Context, target string, undo bool) (name, detail string, err error) {
	if target != "leader" && target != "follower" {
		return target, "", nil
	}
	t.mu.Lock()
	prev := t.leader
	t.mu.Unlock()
	if undo && target == "leader" {
		if prev == "" {
			return "", "", fmt.Errorf("no earlier fault hit the leader")
		}
		return prev, "the member the last leader fault hit", nil
	}
	if undo {
		return "", "", fmt.Errorf("%s follower: name the member (m1..)", "undo")
	}
	el, ok, err := t.c.WatchElection(ctx, time.Second)
	if err != nil {
		return "", "", err
	}
	var l cluster.Leader
	if ok {
		l = el.Old()
		el.Close()
	}
	if target == "leader" {
		if !ok {
			return "", "", fmt.Errorf("no member says it leads")
		}
		t.mu.Lock()
		t.leader = l.Name
		t.mu.Unlock()
		return l.Name, "the leader", nil
	}
	for _, n := range t.c.Names() {
		t.mu.Lock()
		faulted := false
		for _, members := range t.faulted {
			faulted = faulted || members[n]
		}
		t.mu.Unlock()
		if n != l.Name && !faulted {
			return n, "a follower", nil
		}
	}
	return "", "", fmt.Errorf("no follower left to fault")
}

// apply performs one action on member name, records when in event idx,
// and returns it; after a kill, pause or partition of the leader it watches for the
// new leader (in the background) and records how long the election took.
func (t *timeline) apply(ctx context.Context, idx int, action, name string, args ...string) (time.Time, error) {
	f, err := cluster.LookupFault(action)
	if err != nil {
		return time.Now(), err
	}
	a := f.About()
	var el *cluster.Election
	// A one-member cluster elects nobody else: nothing to watch.
	if a.CostsLeader && len(t.c.Names()) > 1 {
		if e, ok, err := t.c.WatchElection(ctx, time.Second); err == nil && ok {
			if e.Old().Name == name {
				el = e
			} else {
				e.Close()
			}
		}
	}
	applied := time.Now()
	if el != nil {
		applied = el.Start()
	}
	t.update(idx, func(e *result.FaultEvent) { e.Time = applied.UTC() })
	err = f.Apply(t.c, faultRequest(a, name, args))
	if err == nil {
		t.mu.Lock()
		if a.Undo != "" {
			if t.faulted[a.Name] == nil {
				t.faulted[a.Name] = map[string]bool{}
			}
			t.faulted[a.Name][name] = true
		}
		if a.Undoes != "" {
			delete(t.faulted[a.Undoes], name)
		}
		t.mu.Unlock()
	}
	if el == nil {
		return applied, err
	}
	if err != nil {
		el.Close()
		return applied, err
	}
	t.elect.Add(1)
	go func() {
		defer t.elect.Done()
		defer el.Close()
		wctx, cancel := context.WithTimeout(t.electCtx, electionWait)
		defer cancel()
		l, took, werr := el.Wait(wctx)
		t.update(idx, func(e *result.FaultEvent) {
			if werr != nil {
				e.Detail += "; " + oneLine(werr)
				return
			}
			e.NewLeaderSeconds = took.Seconds()
			e.Detail += fmt.Sprintf("; %s leads after %.2fs", l.Name, took.Seconds())
		})
	}()
	return applied, nil
}

// record appends an event and returns its index.
func (t *timeline) record(ev result.FaultEvent) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, ev)
	return len(t.events) - 1
}

// update changes event idx.
func (t *timeline) update(idx int, f func(*result.FaultEvent)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(&t.events[idx])
}

// finish stops the timeline (steps not reached are recorded as not
// applied), waits for long-running faults in progress (at most their
// declared About.Timeout; one still running then is cancelled, and says
// so), waits for the election watches (at most electionGrace more;
// an election still running then is recorded as not seen), and undoes what is still
// broken: every member resumed, and when the cluster is reused, killed
// members restarted and partitions healed. It returns the events.
func (t *timeline) finish(reused bool) []result.FaultEvent {
	select {
	case <-t.started:
		t.cancel()
		<-t.done
		finished := make(chan struct{})
		go func() { t.long.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(t.longGrace()):
			t.longCancel()
			<-finished
		}
		t.longCancel()
	default:
		for _, s := range t.steps {
			t.record(result.FaultEvent{AtSeconds: s.at.Seconds(), Action: s.action, Target: s.target, Error: "not applied: no measured run started"})
		}
	}
	waited := make(chan struct{})
	go func() { t.elect.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(electionGrace):
		t.electCancel()
		<-waited
	}
	t.electCancel()
	t.mu.Lock()
	defer t.mu.Unlock()
	// First what must be undone before a cluster stops (paused members),
	// then, on a cluster that is reused, the rest.
	for _, beforeStop := range []bool{true, false} {
		for _, f := range cluster.Faults() {
			a := f.About()
			if a.Undo == "" || a.UndoBeforeStop != beforeStop || (!beforeStop && !reused) {
				continue
			}
			undo, err := cluster.LookupFault(a.Undo)
			if err != nil {
				continue
			}
			for n := range t.faulted[a.Name] {
				_ = undo.Apply(t.c, cluster.Request{Args: []string{n}})
			}
		}
	}
	return t.events
}
