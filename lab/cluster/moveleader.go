package cluster

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// moveLeaderTimeout bounds MoveLeader: a transfer takes an election or
// two.
const moveLeaderTimeout = 30 * time.Second

// CurrentLeader is the member that says it leads now and its raft term
// ("" and 0 when none does): a term that grew between two calls means an
// election happened between them, even if the same member won it. Every
// call has a deadline (StatusTimeout).
func (c *Cluster) CurrentLeader(ctx context.Context) (name string, term uint64) {
	for _, s := range Status(ctx, c.Client(), c.endpointNames()) {
		if s.Role == "leader" {
			return s.Name, s.RaftTerm
		}
	}
	return "", 0
}

// MoveLeader hands the leadership to member name, through the current
// leader (etcd's MoveLeader), and returns when name says it leads; it
// retries while an election is under way, for at most 30 s. It is a
// no-op when name leads already.
func (c *Cluster) MoveLeader(ctx context.Context, name string) error {
	if _, err := c.index(name); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, moveLeaderTimeout)
	defer cancel()
	for {
		var leader, target MemberStatus
		for _, s := range Status(ctx, c.Client(), c.endpointNames()) {
			if s.Role == "leader" {
				leader = s
			}
			if s.Name == name {
				target = s
			}
		}
		if leader.Name == name {
			return nil
		}
		if leader.Name != "" && target.ID != "" {
			id, err := strconv.ParseUint(target.ID, 16, 64)
			if err != nil {
				return fmt.Errorf("member %s's ID %q: %w", name, target.ID, err)
			}
			conn := c.Client()
			conn.Endpoints, conn.DialTimeout = []string{leader.Endpoint}, etcdclient.DefaultDialTimeout
			if cli, err := etcdclient.New(conn); err == nil {
				_, _ = cli.MoveLeader(ctx, id) // an election under way: asked again below
				_ = cli.Close()
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("move the leadership to %s: %w (the leader is %q)", name, ctx.Err(), leader.Name)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// endpointNames maps the members' client URLs to their names.
func (c *Cluster) endpointNames() map[string]string {
	out := make(map[string]string, len(c.cfgs))
	for _, cfg := range c.cfgs {
		out[cfg.ClientURL] = cfg.Name
	}
	return out
}
