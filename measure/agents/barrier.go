package agents

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// agentLeaseTTL is the lease every agent's coordination keys hang on: a
// killed agent's keys vanish this long after it died, which is how the
// others learn of it.
const agentLeaseTTL = 10 // seconds

// agentSync is one agent's side of the agents' coordination through keys
// under <prefix>agents/ in the target cluster: alive/<i> while it runs,
// barrier/<name>/<i> when it reached a barrier, stopped/<i> (with the
// reason) when it gave up early. Every key hangs on the agent's lease and
// goes when it is revoked or expires. Used by the goroutine that runs the
// load; its lease's keep-alive runs on its own goroutine until close.
type agentSync struct {
	cli      *clientv3.Client
	prefix   string // <Prefix>agents/
	index    int
	count    int
	wait     time.Duration
	timeout  time.Duration // one request's deadline
	lease    clientv3.LeaseID
	stop     context.CancelFunc
	startAt  time.Time // first start by wall clock (zero: barrier)
	started  bool
	rtts     []time.Duration
	barriers []result.Barrier
	// lost is closed when the keep-alive ends: at close, or when the
	// lease could not be kept (the others then count this agent gone).
	lost chan struct{}
}

// joinAgents grants the agent's lease, keeps it alive and announces the
// agent. Another live agent with the same index under the prefix (the
// same Job applied twice) is an error.
func joinAgents(ctx context.Context, cli *clientv3.Client, cfg *bench.Config) (*agentSync, error) {
	s := &agentSync{cli: cli, prefix: cfg.Prefix + "agents/", index: cfg.Agent.Index, count: cfg.Agent.Count,
		wait: cfg.Agent.Wait, timeout: cfg.RequestTimeout, startAt: cfg.Agent.StartAt}
	if s.wait <= 0 {
		s.wait = bench.DefaultAgentWait
	}
	rctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	g, err := cli.Grant(rctx, agentLeaseTTL)
	if err != nil {
		return nil, fmt.Errorf("agent %d: grant a lease: %w", s.index, etcdclient.Explain(err))
	}
	s.lease = g.ID
	alive := s.prefix + "alive/" + strconv.Itoa(s.index)
	tx, err := cli.Txn(rctx).If(clientv3.Compare(clientv3.CreateRevision(alive), "=", 0)).
		Then(clientv3.OpPut(alive, cfg.Agent.Host, clientv3.WithLease(g.ID))).Commit()
	if err == nil && !tx.Succeeded {
		err = fmt.Errorf("another agent %d is already running under %s", s.index, cfg.Prefix)
	}
	if err != nil {
		s.revoke()
		return nil, fmt.Errorf("agent %d: %w", s.index, etcdclient.Explain(err))
	}
	kctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stop = stop
	ch, err := cli.KeepAlive(kctx, g.ID)
	if err != nil {
		stop()
		s.revoke()
		return nil, fmt.Errorf("agent %d: keep its lease alive: %w", s.index, etcdclient.Explain(err))
	}
	s.lost = make(chan struct{})
	go func() {
		for range ch { // drained until kctx ends or the lease is lost
		}
		close(s.lost)
	}()
	return s, nil
}

// ready waits until every agent is ready to start the run called name
// (a barrier), or, the first time with a wall-clock start, until that
// time. It returns an error when the wait ends otherwise: an agent
// stopped or died, the others did not come within the wait, ctx ended.
func (s *agentSync) ready(ctx context.Context, name string) error {
	if !s.started && !s.startAt.IsZero() {
		s.started = true
		d := time.Until(s.startAt)
		if d < -time.Second {
			return fmt.Errorf("agent %d: the start time %s passed %s ago", s.index, s.startAt.Format(time.RFC3339Nano), (-d).Round(time.Millisecond))
		}
		select {
		case <-time.After(d):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.started = true
	return s.barrier(ctx, name)
}

// barrier announces that this agent reached barrier name and waits for
// the others; it records when it saw the last one arrive.
func (s *agentSync) barrier(ctx context.Context, name string) error {
	select {
	case <-s.lost:
		return fmt.Errorf("agent %d at %s: its lease expired (the cluster was unreachable): the others count it gone", s.index, name)
	default:
	}
	wctx, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	bp := s.prefix + "barrier/" + name + "/"
	rctx, rcancel := context.WithTimeout(wctx, s.timeout)
	resp, err := s.cli.Get(rctx, s.prefix, clientv3.WithPrefix())
	rcancel()
	if err != nil {
		return fmt.Errorf("agent %d at %s: %w", s.index, name, etcdclient.Explain(err))
	}
	arrived := map[string]bool{}
	for _, kv := range resp.Kvs {
		k := string(kv.Key)
		if err := s.stopped(k, kv.Value); err != nil {
			return err
		}
		if strings.HasPrefix(k, bp) {
			arrived[k] = true
		}
	}
	// The watch starts before this agent's own key is written, so every
	// agent, the last included, sees the last arrival as a watch event:
	// the moment they see it is the same up to delivery (common view).
	wch := s.cli.Watch(clientv3.WithRequireLeader(wctx), s.prefix, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
	own := bp + strconv.Itoa(s.index)
	began := time.Now()
	rctx, rcancel = context.WithTimeout(wctx, s.timeout)
	_, err = s.cli.Put(rctx, own, "", clientv3.WithLease(s.lease))
	rcancel()
	if err != nil {
		return fmt.Errorf("agent %d at %s: %w", s.index, name, etcdclient.Explain(err))
	}
	s.rtts = append(s.rtts, time.Since(began))
	for len(arrived) < s.count {
		wr, ok := <-wch
		if !ok || wr.Err() != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if wctx.Err() != nil {
				return fmt.Errorf("agent %d at %s: %s did not arrive within %s", s.index, name, s.absent(arrived, bp), s.wait)
			}
			return fmt.Errorf("agent %d at %s: watch: %w", s.index, name, wr.Err())
		}
		for _, ev := range wr.Events {
			if len(arrived) >= s.count {
				break // later events (an agent that passed and left) are not this barrier's
			}
			k := string(ev.Kv.Key)
			switch {
			case ev.Type == clientv3.EventTypeDelete && strings.HasPrefix(k, s.prefix+"alive/"):
				return &LostError{Index: agentIndex(k), Reason: "its lease expired: it died or lost the cluster", Died: true}
			case ev.Type == clientv3.EventTypePut:
				if err := s.stopped(k, ev.Kv.Value); err != nil {
					return err
				}
				if strings.HasPrefix(k, bp) {
					arrived[k] = true
				}
			}
		}
	}
	s.barriers = append(s.barriers, result.Barrier{Name: name, Seen: time.Now().UTC()})
	return nil
}

// stopped returns the error for another agent's stopped/ key.
func (s *agentSync) stopped(key string, value []byte) error {
	if !strings.HasPrefix(key, s.prefix+"stopped/") {
		return nil
	}
	return &LostError{Index: agentIndex(key), Reason: "it stopped: " + string(value)}
}

// absent names the agents that have not reached the barrier.
func (s *agentSync) absent(arrived map[string]bool, bp string) string {
	var missing []string
	for i := range s.count {
		if !arrived[bp+strconv.Itoa(i)] {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) == 1 {
		return "agent " + missing[0]
	}
	return "agents " + strings.Join(missing, ", ")
}

// giveUp tells the others this agent stopped early, and why.
func (s *agentSync) giveUp(ctx context.Context, reason string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	defer cancel()
	_, _ = s.cli.Put(rctx, s.prefix+"stopped/"+strconv.Itoa(s.index), reason, clientv3.WithLease(s.lease))
}

// record fills the agent's part of its result.
func (s *agentSync) record(cfg *bench.Config) *result.AgentRun {
	mode := "cluster"
	if !cfg.Agent.StartAt.IsZero() {
		mode = "wall-clock"
	}
	a := &result.AgentRun{Index: s.index, Count: s.count, Host: cfg.Agent.Host, Prefix: SubPrefix(cfg.Prefix, s.index), StartMode: mode, Barriers: s.barriers}
	if len(s.rtts) > 0 {
		r := slices.Clone(s.rtts)
		sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
		a.RoundTripSeconds = r[len(r)/2].Seconds()
	}
	return a
}

// close stops the keep-alive and revokes the lease: every coordination
// key of this agent goes.
func (s *agentSync) close() {
	s.stop()
	s.revoke()
}

func (s *agentSync) revoke() {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	_, _ = s.cli.Revoke(ctx, s.lease)
}

// LostError says another agent stopped or died, so the agents' runs no
// longer overlap; this agent stopped too.
type LostError struct {
	Index  int
	Reason string
	// Died is true when its lease expired: it did not stop on its own,
	// so it did not delete its keys.
	Died bool
}

func (e *LostError) Error() string {
	return fmt.Sprintf("agent %d is gone: %s", e.Index, e.Reason)
}

// agentIndex reads the index at the end of a coordination key.
func agentIndex(key string) int {
	n, err := strconv.Atoi(key[strings.LastIndexByte(key, '/')+1:])
	if err != nil {
		return -1
	}
	return n
}

// isAgentLost reports whether err says another agent is gone.
func isAgentLost(err error) bool {
	var lost *LostError
	return errors.As(err, &lost)
}

// end closes an agent's runs: after a complete run, a last barrier
// (every agent finished measuring; one more clock comparison); otherwise
// the others are told why this agent stopped. It returns the run's error,
// or the barrier's.
func (s *agentSync) end(ctx context.Context, doc *result.Document, runErr error) error {
	stopped := ""
	if n := len(doc.Runs); n > 0 && doc.Runs[n-1].StoppedEarly != "" {
		stopped = doc.Runs[n-1].StoppedEarly
	}
	switch {
	case isAgentLost(runErr):
		return runErr
	case runErr != nil:
		s.giveUp(ctx, runErr.Error())
		return runErr
	case ctx.Err() != nil:
		s.giveUp(ctx, "interrupted")
		return nil
	case stopped != "":
		s.giveUp(ctx, stopped)
		return nil
	}
	return s.barrier(ctx, "end")
}
