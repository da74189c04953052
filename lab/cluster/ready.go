package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// probeTimeout bounds each readiness probe of one member.
const probeTimeout = time.Second

// waitReady polls every member until all answer and agree on a leader, a
// member process exits, ctx ends or the start timeout passes.
func (c *Cluster) waitReady(ctx context.Context) error {
	cli, err := etcdclient.New(c.Client())
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(c.opts.StartTimeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if err := c.checkExited(); err != nil {
			return err
		}
		ready, ids, notReady, why := c.probeAll(ctx, cli)
		if ready && c.linearizableRead(ctx, cli) == nil {
			c.mu.Lock()
			c.ids, c.started = ids, time.Now().UTC()
			c.mu.Unlock()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("interrupted while waiting for the cluster to start")
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			i, _ := c.index(notReady)
			return &StartError{Name: "member " + notReady, Err: fmt.Errorf("not ready after %s: %s", c.opts.StartTimeout, why),
				LogFile: c.cfgs[i].LogFile, Tail: child.Tail(c.cfgs[i].LogFile, startTailLines)}
		}
	}
}

// checkExited turns a member process that died during start into an error.
func (c *Cluster) checkExited() error {
	c.mu.Lock()
	procs := append([]*child.Process(nil), c.procs...)
	c.mu.Unlock()
	for i, p := range procs {
		if done, err := p.Exited(); done {
			reason := "its process exited"
			if err != nil {
				reason += " (" + err.Error() + ")"
			}
			// Give the log a moment to be flushed before reading it.
			time.Sleep(50 * time.Millisecond)
			return &StartError{Name: p.Name(), Err: errors.New(reason), LogFile: c.cfgs[i].LogFile, Tail: child.Tail(c.cfgs[i].LogFile, startTailLines)}
		}
	}
	return nil
}

// probeAll asks every member for its status in parallel. It reports whether
// all answered with the same non-zero leader, their IDs in hex, and, if not
// ready, one member that is not and why.
func (c *Cluster) probeAll(ctx context.Context, cli *clientv3.Client) (ready bool, ids []string, notReady, why string) {
	eps := c.Endpoints()
	resps := make([]*clientv3.StatusResponse, len(eps))
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			resps[i], errs[i] = cli.Status(pctx, ep)
		}()
	}
	wg.Wait()
	var leader uint64
	ids = make([]string, len(eps))
	for i, r := range resps {
		if errs[i] != nil {
			return false, nil, c.names[i], etcdclient.Describe(errs[i])
		}
		if r.Leader == 0 {
			return false, nil, c.names[i], "no leader elected yet"
		}
		if leader != 0 && r.Leader != leader {
			return false, nil, c.names[i], "members disagree on the leader"
		}
		leader = r.Leader
		ids[i] = fmt.Sprintf("%x", r.Header.MemberId)
	}
	return true, ids, "", ""
}

// linearizableRead checks that the cluster serves a quorum read.
func (c *Cluster) linearizableRead(ctx context.Context, cli *clientv3.Client) error {
	rctx, cancel := context.WithTimeout(ctx, 2*probeTimeout)
	defer cancel()
	_, err := cli.Get(rctx, "health")
	return err
}
