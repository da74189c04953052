package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// MemberStatus is what one endpoint reports about itself, as
// `etcdctl endpoint status` and `endpoint health` show it.
type MemberStatus struct {
	Name             string  `json:"name,omitempty"`
	Endpoint         string  `json:"endpoint"`
	ID               string  `json:"id,omitempty"`
	Version          string  `json:"version,omitempty"`
	DBSizeBytes      int64   `json:"db_size_bytes"`
	DBInUseBytes     int64   `json:"db_in_use_bytes"`
	Role             string  `json:"role"` // leader, follower, learner or unreachable
	RaftTerm         uint64  `json:"raft_term"`
	RaftIndex        uint64  `json:"raft_index"`
	RaftAppliedIndex uint64  `json:"raft_applied_index"`
	Healthy          bool    `json:"healthy"`
	TookSeconds      float64 `json:"took_seconds"`
	// Error says why the member is unhealthy or unreachable.
	Error string `json:"error,omitempty"`
}

// StatusTimeout bounds each member's answer.
const StatusTimeout = 3 * time.Second

// Status asks every endpoint of cfg for its status and health, in parallel,
// each within StatusTimeout. names maps endpoints to member names where they
// are known. Unreachable members are reported in the result, not as an error.
func Status(ctx context.Context, cfg etcdclient.Config, names map[string]string) []MemberStatus {
	out := make([]MemberStatus, len(cfg.Endpoints))
	var wg sync.WaitGroup
	for i, ep := range cfg.Endpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := cfg
			one.Endpoints = []string{ep}
			out[i] = statusOf(ctx, one)
			out[i].Name = names[ep]
		}()
	}
	wg.Wait()
	return out
}

func statusOf(ctx context.Context, cfg etcdclient.Config) MemberStatus {
	ep := cfg.Endpoints[0]
	ms := MemberStatus{Endpoint: ep, Role: "unreachable"}
	if cfg.DialTimeout == 0 || cfg.DialTimeout > StatusTimeout {
		cfg.DialTimeout = StatusTimeout
	}
	cli, err := etcdclient.New(cfg)
	if err != nil {
		ms.Error = err.Error()
		return ms
	}
	defer cli.Close()
	start := time.Now()
	// The client waits for a connection until its deadline; a plain TCP
	// connect tells a refused port from a hung member at once.
	if err := etcdclient.Probe(ctx, cfg, ep); err != nil {
		ms.TookSeconds = time.Since(start).Seconds()
		ms.Error = "unreachable: " + err.Error()
		return ms
	}
	sctx, cancel := context.WithTimeout(ctx, StatusTimeout)
	defer cancel()
	r, err := cli.Status(sctx, cli.Endpoints()[0])
	ms.TookSeconds = time.Since(start).Seconds()
	if err != nil {
		ms.Error = "unreachable: " + etcdclient.Describe(err)
		return ms
	}
	ms.ID = fmt.Sprintf("%x", r.Header.MemberId)
	ms.Version = r.Version
	ms.DBSizeBytes, ms.DBInUseBytes = r.DbSize, r.DbSizeInUse
	ms.RaftTerm, ms.RaftIndex, ms.RaftAppliedIndex = r.RaftTerm, r.RaftIndex, r.RaftAppliedIndex
	switch {
	case r.IsLearner:
		ms.Role = "learner"
	case r.Leader != 0 && r.Leader == r.Header.MemberId:
		ms.Role = "leader"
	default:
		ms.Role = "follower"
	}
	if len(r.Errors) > 0 {
		ms.Error = fmt.Sprintf("%v", r.Errors)
		return ms
	}
	if r.Leader == 0 {
		ms.Error = "no leader"
		return ms
	}
	// Health as etcdctl endpoint health defines it: a quorum read succeeds
	// (permission denied still proves a working quorum).
	_, err = cli.Get(sctx, "health")
	if err != nil && !errors.Is(err, rpctypes.ErrPermissionDenied) {
		ms.Error = "unhealthy: " + etcdclient.Describe(err)
		return ms
	}
	ms.Healthy = true
	return ms
}
