package replay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Preload's batching.
const (
	// maxTxnOps is etcd's default --max-txn-ops: a preload txn writes at
	// most this many keys.
	maxTxnOps = 128
	// preloadWorkers is how many txns are in flight at once.
	preloadWorkers = 4
	// callTimeout bounds each call of Preload and Start.
	callTimeout = 30 * time.Second
)

// batch is preload txn: keys [from, to) of one group.
type batch struct {
	g        *group
	from, to int64
}

// Preload builds the keyspace to the census's shape under Prefix: every
// group's keys (counts, key and value sizes per prefix) in transactions of
// at most 128 puts, a few at a time, each call with its own deadline.
// progress, if set, is called after each transaction with the keys written
// so far and the total, from Preload's goroutines one at a time. Then, on
// a lab cluster (Options.Lab), if the profile's keyspace had compacted
// revisions (CompactRevision > 0), it compacts at the preload's last
// revision, so that the replay starts, as the source did, without history
// to keep (etcd's compaction is the whole store's: never on a cluster
// etcdlab did not start).
func (pl *Plan) Preload(ctx context.Context, cli *clientv3.Client, progress func(done, total int64)) error {
	total := pl.PreloadKeys()
	work := make(chan batch)
	var (
		mu    sync.Mutex
		done  int64
		rev   int64
		first error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range preloadWorkers {
		wg.Go(func() {
			for b := range work {
				r, err := preloadBatch(ctx, cli, b)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				done += b.to - b.from
				rev = max(rev, r)
				if err == nil && progress != nil {
					progress(done, total)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, g := range pl.groups {
		for from := int64(0); from < g.n(); from += maxTxnOps {
			select {
			case work <- batch{g: g, from: from, to: min(from+maxTxnOps, g.n())}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(work)
	wg.Wait()
	if first != nil {
		return first
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !pl.o.Lab {
		return nil
	}
	if k := pl.p.Keyspace; k != nil && k.CompactRevision > 0 && rev > 0 {
		cctx, ccancel := context.WithTimeout(ctx, callTimeout)
		defer ccancel()
		if _, err := cli.Compact(cctx, rev, clientv3.WithCompactPhysical()); err != nil && !errors.Is(err, rpctypes.ErrCompacted) {
			return fmt.Errorf("compact the preload's history at revision %d: %w", rev, err)
		}
		// A source whose file was all in use had no free pages (it was
		// defragmented, or never compacted): nor does the replay's.
		if k.DBSize > 0 && float64(k.DBSizeInUse) >= 0.9*float64(k.DBSize) {
			for _, ep := range cli.Endpoints() {
				if _, err := cli.Defragment(cctx, ep); err != nil {
					return fmt.Errorf("defragment %s after the preload: %w", ep, err)
				}
			}
		}
	}
	return nil
}

// preloadBatch writes one batch in one txn and returns its revision.
func preloadBatch(ctx context.Context, cli *clientv3.Client, b batch) (int64, error) {
	ops := make([]clientv3.Op, 0, b.to-b.from)
	var buf []byte
	for i := b.from; i < b.to; i++ {
		buf = b.g.keys.Append(buf[:0], i)
		ops = append(ops, clientv3.OpPut(string(buf), string(b.g.value)))
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	r, err := cli.Txn(cctx).Then(ops...).Commit()
	if err != nil {
		return 0, fmt.Errorf("preload %s keys %d to %d: %w", b.g.keys.Prefix, b.from, b.to, err)
	}
	return r.Header.GetRevision(), nil
}
