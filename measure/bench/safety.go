package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Safety rules for clusters etcdlab did not start: write only under an
// empty prefix of our own, never push the database past half its quota,
// and delete what was written.
const (
	quotaShare      = 0.5
	defaultQuota    = 2 << 30 // etcd's default --quota-backend-bytes
	perKVOverhead   = 64      // revision key, KeyValue fields, page overhead (an estimate)
	guardInterval   = 2 * time.Second
	cleanupDeadline = 30 * time.Second
)

// checkPrefixEmpty refuses a prefix that already holds keys: etcdlab deletes
// its prefix when done and must not delete anybody's data.
func checkPrefixEmpty(ctx context.Context, t *target, prefix string) error {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout(t.conn))
	defer cancel()
	r, err := t.cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return fmt.Errorf("check prefix %s: %s", prefix, etcdclient.Describe(err))
	}
	if r.Count > 0 {
		return invalid.Errorf("{Prefix} %s already holds %d keys; choose an empty {Prefix} (etcdlab deletes its prefix when done)", prefix, r.Count)
	}
	return nil
}

// quota returns the database size and the quota of the cluster.
func quota(ctx context.Context, t *target) (db, quota int64, err error) {
	st, err := statusAny(ctx, t)
	if err != nil {
		return 0, 0, fmt.Errorf("read the database size: %s", etcdclient.Describe(err))
	}
	quota = st.DbSizeQuota
	if quota <= 0 {
		quota = defaultQuota
	}
	return st.DbSize, quota, nil
}

// checkQuota refuses a run whose estimated writes could push the database
// past half its quota, with the numbers.
func checkQuota(ctx context.Context, t *target, estimate int64) error {
	db, q, err := quota(ctx, t)
	if err != nil {
		return err
	}
	limit := int64(float64(q) * quotaShare)
	if db+estimate > limit {
		return invalid.Errorf("refusing to write about %s to a cluster whose database is %s of a %s quota: that could pass %.0f%% of the quota (%s); lower {Total} or {ValSize}",
			humanize.IBytes(uint64(estimate)), humanize.IBytes(uint64(db)), humanize.IBytes(uint64(q)), quotaShare*100, humanize.IBytes(uint64(limit)))
	}
	return nil
}

// dbGuard watches the database size during a run and closes Stop when it
// passes half the quota. Call close when the run is over.
type dbGuard struct {
	stop   chan struct{}
	once   sync.Once
	reason string
	mu     sync.Mutex
	done   chan struct{}
}

func startGuard(ctx context.Context, t *target) *dbGuard {
	g := &dbGuard{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		tick := time.NewTicker(guardInterval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				db, q, err := quota(ctx, t)
				if err == nil && float64(db) > quotaShare*float64(q) {
					g.mu.Lock()
					g.reason = fmt.Sprintf("the database reached %s, past %.0f%% of its %s quota", humanize.IBytes(uint64(db)), quotaShare*100, humanize.IBytes(uint64(q)))
					g.mu.Unlock()
					g.once.Do(func() { close(g.stop) })
					return
				}
			case <-g.done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return g
}

func (g *dbGuard) Reason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

func (g *dbGuard) close() { close(g.done) }

// cleanup deletes the prefix and optionally compacts (leases are revoked by
// the engine that granted them). It runs even when ctx was cancelled
// (Ctrl-C), with its own deadline.
func cleanup(ctx context.Context, t *target, prefix string, compact bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupDeadline)
	defer cancel()
	r, err := t.cli.Delete(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return "", fmt.Errorf("delete %s: %s", prefix, etcdclient.Describe(err))
	}
	note := fmt.Sprintf("deleted %d keys under %s", r.Deleted, prefix)
	if compact {
		if _, err := t.cli.Compact(ctx, r.Header.Revision); err != nil {
			return note, fmt.Errorf("compact: %s", etcdclient.Describe(err))
		}
		note += fmt.Sprintf(" and compacted to revision %d", r.Header.Revision)
	}
	return note, nil
}
