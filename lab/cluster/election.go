package cluster

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// Election times the election a fault may cost a cluster (About.CostsLeader):
// WatchElection finds who leads before the fault, Start marks the moment
// the fault is applied, and Wait waits until a member leads in a later
// term (the old leader too, re-elected after a restart). It is the one
// "inject, then time the new leader" of `etcdlab cluster fault
// --wait-leader` and experiment timelines.
//
// Not safe for concurrent use (Wait may run on another goroutine than
// the one that called Start, one after the other); Close releases its
// clients.
type Election struct {
	watch *LeaderWatch
	old   Leader
	began time.Time
}

// WatchElection watches the members of cfg (names maps their endpoints to
// member names) and finds the current leader, asking each member for at
// most timeout. ok is false (and the Election nil) when no member says it
// leads; err when the members' clients cannot be made.
func WatchElection(ctx context.Context, cfg etcdclient.Config, names map[string]string, timeout time.Duration) (e *Election, ok bool, err error) {
	w, err := NewLeaderWatch(cfg, names)
	if err != nil {
		return nil, false, err
	}
	old, ok := w.Current(ctx, timeout)
	if !ok {
		w.Close()
		return nil, false, nil
	}
	return &Election{watch: w, old: old, began: time.Now()}, true, nil
}

// WatchElection watches the cluster st describes, as the package-level
// WatchElection does.
func (s State) WatchElection(ctx context.Context, timeout time.Duration) (*Election, bool, error) {
	names := map[string]string{}
	for _, m := range s.Members {
		names[m.ClientURL] = m.Name
	}
	return WatchElection(ctx, s.Client(), names, timeout)
}

// WatchElection watches c, as the package-level WatchElection does.
func (c *Cluster) WatchElection(ctx context.Context, timeout time.Duration) (*Election, bool, error) {
	cc := c.Client()
	names := map[string]string{}
	for i, ep := range cc.Endpoints {
		names[ep] = c.Names()[i]
	}
	return WatchElection(ctx, cc, names, timeout)
}

// Old is the leader before the fault.
func (e *Election) Old() Leader { return e.old }

// Start marks now as the moment the fault is applied, from which Wait
// times the election, and returns it. Call it just before applying.
func (e *Election) Start() time.Time {
	e.began = time.Now()
	return e.began
}

// Wait waits until a member other than Old leads in a later term, and
// returns it with the time since Start; it gives up when ctx ends.
func (e *Election) Wait(ctx context.Context) (Leader, time.Duration, error) {
	return e.watch.WaitChange(ctx, e.old, e.began)
}

// Close releases the members' clients.
func (e *Election) Close() { e.watch.Close() }
