package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/observe/series"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// target is the cluster a run talks to.
type target struct {
	conn      etcdclient.Config
	endpoints []string // where load goes (the leader's with --target-leader)
	cli       *clientv3.Client
	local     *cluster.Cluster // nil for a cluster etcdlab did not start
	ownLocal  bool             // local was started for this run: stop it at close
	series    series.Options   // how to scrape the members (with Config.ScrapeInterval)
}

func (t *target) close() {
	if t.cli != nil {
		t.cli.Close()
	}
	if t.local != nil && t.ownLocal {
		_ = t.local.Stop()
	}
}

// connect reaches the configured cluster, or starts a local one when no
// endpoints were given, and fills in the environment.
func connect(ctx context.Context, cfg *Config, env *result.Environment) (*target, error) {
	t := &target{conn: cfg.Conn}
	switch {
	case cfg.Cluster != nil:
		c := cfg.Cluster
		t.local, t.conn = c, c.Client()
		t.conn.DialTimeout = cfg.Conn.DialTimeout
		cfg.Conn = t.conn // the result names its endpoints and TLS
		env.LocalCluster, env.DataDir, env.Filesystem = true, c.DataDir(), envinfo.Filesystem(c.DataDir())
		env.MemberCPUs = c.State().MemberCPUs()
	case len(cfg.Conn.Endpoints) == 0:
		c, err := cluster.Start(ctx, cluster.Options{Members: cfg.LocalMembers, BaseDir: cfg.LocalBaseDir, Log: cfg.Log})
		if err != nil {
			return nil, fmt.Errorf("start a local cluster: %w", err)
		}
		t.local, t.ownLocal, t.conn = c, true, c.Client()
		t.conn.DialTimeout = cfg.Conn.DialTimeout
		env.LocalCluster, env.DataDir, env.Filesystem = true, c.DataDir(), envinfo.Filesystem(c.DataDir())
		fmt.Fprintf(cfg.Log, "no --endpoints: started a local %d-member cluster in %s (removed when the run ends)\n", cfg.LocalMembers, c.DataDir())
	}
	cli, err := etcdclient.NewChecked(ctx, t.conn)
	if err != nil {
		t.close()
		return nil, err
	}
	t.cli = cli
	t.endpoints = t.conn.Endpoints
	members, err := memberList(ctx, t)
	if err != nil {
		t.close()
		return nil, err
	}
	env.Members = len(members.Members)
	t.series = cfg.seriesOptions(t, members)
	if st, err := t.safety().Status(ctx); err == nil {
		env.ServerVersion = st.Version
	}
	if byMember, summary, err := etcdclient.MemberVersions(ctx, t.cli); err == nil && len(byMember) > 0 {
		env.MemberVersions, env.ServerVersion = byMember, summary
	}
	if cfg.TargetLeader {
		eps, err := leaderEndpoints(ctx, t, members)
		if err != nil {
			t.close()
			return nil, err
		}
		t.endpoints = eps
	}
	if cfg.TargetMember != "" {
		t.endpoints = nil
		for _, m := range members.Members {
			if m.Name == cfg.TargetMember {
				t.endpoints = m.ClientURLs
			}
		}
		if len(t.endpoints) == 0 {
			t.close()
			return nil, fmt.Errorf("no member named %q to target", cfg.TargetMember)
		}
	}
	return t, nil
}

func memberList(ctx context.Context, t *target) (*clientv3.MemberListResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout(t.conn))
	defer cancel()
	r, err := t.cli.MemberList(ctx)
	if err != nil {
		return nil, fmt.Errorf("list members: %w", etcdclient.Explain(err))
	}
	return r, nil
}

// leaderEndpoints finds the leader's client URLs, as etcd benchmark's
// --target-leader does, but within the dial timeout: an unreachable leader
// is an error, not a hang.
func leaderEndpoints(ctx context.Context, t *target, members *clientv3.MemberListResponse) ([]string, error) {
	st, err := t.safety().Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the leader: no endpoint answered: %w", etcdclient.Explain(err))
	}
	if st.Leader == 0 {
		return nil, errors.New("find the leader: the cluster has no leader")
	}
	for _, m := range members.Members {
		if m.ID != st.Leader {
			continue
		}
		if len(m.ClientURLs) == 0 {
			return nil, fmt.Errorf("find the leader: the leader %s advertises no client URL", m.Name)
		}
		if err := etcdclient.Probe(ctx, t.conn, m.ClientURLs[0]); err != nil {
			return nil, fmt.Errorf("send the load to the leader: its client URL %s is unreachable from here: %w", strings.Join(m.ClientURLs, ","), err)
		}
		return m.ClientURLs, nil
	}
	return nil, fmt.Errorf("find the leader: leader %x is not in the member list", st.Leader)
}

func dialTimeout(c etcdclient.Config) time.Duration {
	if c.DialTimeout > 0 {
		return c.DialTimeout
	}
	return etcdclient.DefaultDialTimeout
}
