// Package safety holds the rules for loading a cluster etcdlab did not
// start, shared by `etcdlab bench` and `etcdlab check`: write only under an
// empty prefix of one's own, never push the database past half its quota
// (refuse a run whose estimate could, stop a run whose database does), and
// delete what was written, also after Ctrl-C; and, for a writer whose
// keys are not its own to name (a real kube-apiserver), a Claim on a
// prefix that a killed owner's successor removes.
package safety

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// The rules' numbers.
const (
	// QuotaShare is the share of the quota the database must stay under.
	QuotaShare = 0.5
	// DefaultQuota is etcd's default backend quota, assumed when a
	// member reports none.
	DefaultQuota = 2 << 30
	// PerKVOverhead is what a key-value pair costs the database besides
	// its key and value: revision key, KeyValue fields, page overhead (an
	// estimate).
	PerKVOverhead = 64
	// GuardInterval is how often a Guard reads the database size.
	GuardInterval = 2 * time.Second
	// CleanupDeadline bounds Cleanup.
	CleanupDeadline = 30 * time.Second
)

// Cluster is the cluster the rules protect. It is a plain value; its
// methods are safe for concurrent use as Cli is.
type Cluster struct {
	// Cli reaches the cluster.
	Cli *clientv3.Client
	// Endpoints are asked for their status, in order, until one answers.
	Endpoints []string
	// Timeout bounds each status read and the prefix check (default
	// etcdclient.DefaultDialTimeout).
	Timeout time.Duration
}

func (c Cluster) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return etcdclient.DefaultDialTimeout
}

// Status returns the status of the first endpoint that answers.
func (c Cluster) Status(ctx context.Context) (*clientv3.StatusResponse, error) {
	var last error
	for _, ep := range c.Endpoints {
		sctx, cancel := context.WithTimeout(ctx, c.timeout())
		r, err := c.Cli.Status(sctx, ep)
		cancel()
		if err == nil {
			return r, nil
		}
		last = err
	}
	return nil, last
}

// PrefixInUseError refuses a prefix that already holds keys: what is
// written under the prefix is deleted when done, and must not be anybody
// else's data.
type PrefixInUseError struct {
	Prefix string
	Keys   int64
}

func (e *PrefixInUseError) Error() string {
	return fmt.Sprintf("prefix %s already holds %d keys", e.Prefix, e.Keys)
}

// CheckPrefixEmpty returns a *PrefixInUseError when prefix holds keys.
func (c Cluster) CheckPrefixEmpty(ctx context.Context, prefix string) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	r, err := c.Cli.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil {
		return fmt.Errorf("check prefix %s: %w", prefix, described{err})
	}
	if r.Count > 0 {
		return &PrefixInUseError{Prefix: prefix, Keys: r.Count}
	}
	return nil
}

// Quota returns the database size and the quota of the cluster.
func (c Cluster) Quota(ctx context.Context) (db, quota int64, err error) {
	st, err := c.Status(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("read the database size: %w", described{err})
	}
	quota = st.DbSizeQuota
	if quota <= 0 {
		quota = DefaultQuota
	}
	return st.DbSize, quota, nil
}

// QuotaError refuses a run whose estimated writes could push the database
// past QuotaShare of its quota.
type QuotaError struct {
	Estimate, DB, Quota, Limit int64
}

func (e *QuotaError) Error() string {
	return fmt.Sprintf("refusing to write about %s to a cluster whose database is %s of a %s quota: that could pass %.0f%% of the quota (%s)",
		humanize.IBytes(uint64(e.Estimate)), humanize.IBytes(uint64(e.DB)), humanize.IBytes(uint64(e.Quota)), QuotaShare*100, humanize.IBytes(uint64(e.Limit)))
}

// CheckQuota returns a *QuotaError when writing about estimate bytes could
// push the database past QuotaShare of its quota.
func (c Cluster) CheckQuota(ctx context.Context, estimate int64) error {
	db, q, err := c.Quota(ctx)
	if err != nil {
		return err
	}
	limit := int64(float64(q) * QuotaShare)
	if db+estimate > limit {
		return &QuotaError{Estimate: estimate, DB: db, Quota: q, Limit: limit}
	}
	return nil
}

// Estimate is how much requests writing keysPerRequest keys each add to the
// database, with keys of prefix plus keySize bytes and values of valSize.
func Estimate(requests, keysPerRequest float64, prefix string, keySize, valSize int) int64 {
	perKV := float64(len(prefix) + keySize + valSize + PerKVOverhead)
	return int64(math.Ceil(requests * keysPerRequest * perKV))
}

// Guard watches the database size during a run: Stop is closed when it
// passes QuotaShare of the quota, and Reason says so. Close it when the run
// is over. Safe for concurrent use.
type Guard struct {
	stop   chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	reason string
}

// StartGuard starts watching until Close or ctx ends.
func (c Cluster) StartGuard(ctx context.Context) *Guard {
	g := &Guard{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		tick := time.NewTicker(GuardInterval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				db, q, err := c.Quota(ctx)
				if err == nil && float64(db) > QuotaShare*float64(q) {
					g.mu.Lock()
					g.reason = fmt.Sprintf("the database reached %s, past %.0f%% of its %s quota", humanize.IBytes(uint64(db)), QuotaShare*100, humanize.IBytes(uint64(q)))
					g.mu.Unlock()
					close(g.stop)
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

// Stop is closed when the database passed QuotaShare of its quota.
func (g *Guard) Stop() <-chan struct{} { return g.stop }

// Reason says why Stop was closed, or "" while it is not.
func (g *Guard) Reason() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

// Close stops watching. Call it once.
func (g *Guard) Close() { close(g.done) }

// Cleanup deletes everything under prefix and, with compact, compacts to
// the revision of the delete. It runs even when ctx was cancelled (Ctrl-C),
// within CleanupDeadline, and says what it did.
func (c Cluster) Cleanup(ctx context.Context, prefix string, compact bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CleanupDeadline)
	defer cancel()
	r, err := c.Cli.Delete(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return "", fmt.Errorf("delete %s: %w", prefix, described{err})
	}
	note := fmt.Sprintf("deleted %d keys under %s", r.Deleted, prefix)
	if compact {
		if _, err := c.Cli.Compact(ctx, r.Header.Revision); err != nil {
			return note, fmt.Errorf("compact: %w", described{err})
		}
		note += fmt.Sprintf(" and compacted to revision %d", r.Header.Revision)
	}
	return note, nil
}

// RunID names a run, for a prefix of its own: UTC time and 4 random hex
// digits, printable and sortable.
func RunID(t time.Time) string {
	b := make([]byte, 2)
	_, _ = rand.Read(b)
	return t.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}
