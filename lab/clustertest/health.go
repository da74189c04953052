package clustertest

import (
	"context"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
)

// WaitHealthy waits until every member answers healthy and all have
// applied the same raft index (a restarted or resumed member has caught
// up), and fails the test if that has not happened within timeout. It is
// for a quiet cluster: under load the indexes rarely agree.
func (c *Cluster) WaitHealthy(timeout time.Duration) {
	c.t.Helper()
	WaitFor(c.t, timeout, "every member healthy and caught up", c.healthy)
}

// healthy reports whether every member is healthy and caught up.
func (c *Cluster) healthy() bool {
	ctx, cancel := context.WithTimeout(context.Background(), cluster.StatusTimeout)
	defer cancel()
	st := cluster.Status(ctx, c.Client(), nil)
	for _, s := range st {
		if !s.Healthy || s.RaftAppliedIndex != st[0].RaftAppliedIndex {
			return false
		}
	}
	return len(st) > 0
}
