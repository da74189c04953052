package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// maintRequestTimeout bounds one of the job's own writes.
const maintRequestTimeout = 30 * time.Second

// maintPrefix is where the maintenance job writes its data.
const maintPrefix = "/etcdlab/maintenance/"

// maintData is a maintenance cell's data: keys of one value size under
// maintPrefix, a share of them deleted each round (a different share each
// round: the previous round's are written back first), so that the
// database file keeps its size and holds that share free. Used by the
// cell's goroutine only.
type maintData struct {
	cli     *clientv3.Client
	keys    int
	value   string
	deleted []int // the keys the last round deleted
}

func maintKey(k int) string { return fmt.Sprintf("%skey-%08d", maintPrefix, k) }

// fill writes every key.
func (d *maintData) fill(ctx context.Context) error {
	all := make([]int, d.keys)
	for k := range all {
		all[k] = k
	}
	return d.put(ctx, all)
}

// put writes keys ks, fillBatch a transaction, fillWorkers at once.
func (d *maintData) put(ctx context.Context, ks []int) error {
	return d.batches(ctx, ks, func(k int) clientv3.Op { return clientv3.OpPut(maintKey(k), d.value) })
}

func (d *maintData) batches(ctx context.Context, ks []int, op func(int) clientv3.Op) error {
	batch := fillBatch
	if len(d.value)*batch > 1<<20 {
		batch = max(1, (1<<20)/len(d.value))
	}
	next := make(chan []int)
	errs := make(chan error, fillWorkers)
	for range fillWorkers {
		go func() {
			var first error
			for b := range next {
				if first != nil {
					continue
				}
				ops := make([]clientv3.Op, len(b))
				for i, k := range b {
					ops[i] = op(k)
				}
				first = d.commit(ctx, ops)
			}
			errs <- first
		}()
	}
	for i := 0; i < len(ks); i += batch {
		next <- ks[i:min(i+batch, len(ks))]
	}
	close(next)
	var first error
	for range fillWorkers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// maintRetries is how many times a batch is sent again after a
// transient failure: a slow disk's member times proposals out under a
// fill's writes (etcd's "request timed out"), and the batch's puts and
// deletes are idempotent.
const maintRetries = 5

// commit sends one batch, again after a transient failure.
func (d *maintData) commit(ctx context.Context, ops []clientv3.Op) error {
	var err error
	for try := 0; try <= maintRetries; try++ {
		tctx, cancel := context.WithTimeout(ctx, maintRequestTimeout)
		_, err = d.cli.Txn(tctx).Then(ops...).Commit()
		cancel()
		if err == nil || ctx.Err() != nil || !transient(err) {
			return err
		}
		if err := sleepCtx(ctx, time.Duration(try+1)*200*time.Millisecond); err != nil {
			return err
		}
	}
	return err
}

// transient reports whether err is a failure etcd may not repeat: a
// proposal timed out, a leader lost or changed, the server unavailable.
func transient(err error) bool {
	for _, e := range []error{rpctypes.ErrTimeout, rpctypes.ErrTimeoutDueToLeaderFail, rpctypes.ErrTimeoutDueToConnectionLost,
		rpctypes.ErrLeaderChanged, rpctypes.ErrNoLeader, rpctypes.ErrTooManyRequests} {
		if errors.Is(err, e) || err.Error() == e.Error() {
			return true
		}
	}
	return status.Code(err) == codes.Unavailable
}

// fragment writes back what the last round deleted, deletes share of the
// keys (spread over the keyspace, a different set each round) and
// compacts, physically: their pages are then free in the file.
func (d *maintData) fragment(ctx context.Context, round int, share float64) error {
	if err := d.put(ctx, d.deleted); err != nil {
		return fmt.Errorf("write back: %w", err)
	}
	d.deleted = d.deleted[:0]
	for k := range d.keys {
		// A multiplicative hash spreads the round's set over the file.
		if float64((uint64(k)*2654435761+uint64(round)*40503)%1000) < share*1000 {
			d.deleted = append(d.deleted, k)
		}
	}
	if err := d.batches(ctx, d.deleted, func(k int) clientv3.Op { return clientv3.OpDelete(maintKey(k)) }); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return d.compact(ctx)
}

// history writes n versions of a few keys (revisions for a compaction to
// remove), 64 to a transaction.
func (d *maintData) history(ctx context.Context, n int64) error {
	const keys = 64
	small := strings.Repeat("v", 128)
	var ks []int
	for i := range n {
		ks = append(ks, int(i%keys))
	}
	return d.batches(ctx, ks, func(k int) clientv3.Op { return clientv3.OpPut(fmt.Sprintf("%shistory-%02d", maintPrefix, k), small) })
}

// compact compacts the cluster to its current revision, physically.
func (d *maintData) compact(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	resp, err := d.cli.Get(ctx, maintPrefix+"rev")
	if err != nil {
		return err
	}
	_, err = d.cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical())
	if err != nil && strings.Contains(err.Error(), "compacted") {
		return nil
	}
	return err
}
