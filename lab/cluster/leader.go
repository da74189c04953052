package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// LeaderWatch polls every member's view of the leader, to time elections.
// Not safe for concurrent use; Close releases its clients.
type LeaderWatch struct {
	eps   []string
	names map[string]string
	clis  []*clientv3.Client
}

// NewLeaderWatch opens one client per endpoint of cfg. names maps
// endpoints to member names.
func NewLeaderWatch(cfg etcdclient.Config, names map[string]string) (*LeaderWatch, error) {
	w := &LeaderWatch{eps: cfg.Endpoints, names: names}
	for _, ep := range cfg.Endpoints {
		one := cfg
		one.Endpoints = []string{ep}
		one.DialTimeout = time.Second
		cli, err := etcdclient.New(one)
		if err != nil {
			w.Close()
			return nil, err
		}
		w.clis = append(w.clis, cli)
	}
	return w, nil
}

// Leader is who a member says leads, and in which term.
type Leader struct {
	Name string // member name, or hex ID when unknown
	ID   uint64
	Term uint64
}

// Current returns the member that says it leads in the highest term among
// those that answer within timeout; ok false when none does.
func (w *LeaderWatch) Current(ctx context.Context, timeout time.Duration) (Leader, bool) {
	type view struct {
		leader, self, term uint64
		ep                 string
	}
	views := make([]*view, len(w.clis))
	var wg sync.WaitGroup
	for i, cli := range w.clis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			r, err := cli.Status(cctx, w.eps[i])
			if err != nil || r.Leader == 0 {
				return
			}
			views[i] = &view{leader: r.Leader, self: r.Header.MemberId, term: r.RaftTerm, ep: w.eps[i]}
		}()
	}
	wg.Wait()
	var best Leader
	found := false
	for _, v := range views {
		if v != nil && v.leader == v.self && (!found || v.term > best.Term) {
			best, found = Leader{ID: v.self, Term: v.term, Name: w.names[v.ep]}, true
		}
	}
	if found && best.Name == "" {
		best.Name = fmt.Sprintf("%x", best.ID)
	}
	return best, found
}

// Polling of WaitChange: each member is asked on its own, so that a dead or
// hung member (whose Status call waits for its deadline) does not delay
// hearing from the others.
const (
	changePollEvery   = 10 * time.Millisecond
	changePollTimeout = 250 * time.Millisecond
)

// WaitChange asks every member, each on its own every 10 ms, until one says
// it leads in a term later than old's, and returns it with
// the time from since to that answer (late by at most the poll interval
// plus one Status round trip); it gives up when ctx ends. The one that
// leads may be old's member itself: killed and restarted before the
// others elected one (a timeline's "kill: leader, for: 1s" on a slow
// machine), it can win the election of the later term, and the cluster
// then has a leader again as surely as with another member.
func (w *LeaderWatch) WaitChange(ctx context.Context, old Leader, since time.Time) (Leader, time.Duration, error) {
	type found struct {
		l    Leader
		took time.Duration
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	first := make(chan found, len(w.clis))
	var wg sync.WaitGroup
	for i, cli := range w.clis {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				cctx, done := context.WithTimeout(ctx, changePollTimeout)
				r, err := cli.Status(cctx, w.eps[i])
				done()
				if err == nil && r.Leader != 0 && r.Leader == r.Header.MemberId && r.RaftTerm > old.Term {
					l := Leader{ID: r.Leader, Term: r.RaftTerm, Name: w.names[w.eps[i]]}
					if l.Name == "" {
						l.Name = fmt.Sprintf("%x", l.ID)
					}
					first <- found{l, time.Since(since)}
					return
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(changePollEvery):
				}
			}
		}()
	}
	defer func() {
		cancel() // before waiting: the pollers stop at ctx's end
		wg.Wait()
	}()
	select {
	case f := <-first:
		return f.l, f.took, nil
	case <-ctx.Done():
		return Leader{}, time.Since(since), fmt.Errorf("no new leader after %.1fs", time.Since(since).Seconds())
	}
}

// Close releases the clients.
func (w *LeaderWatch) Close() {
	for _, c := range w.clis {
		c.Close()
	}
}
