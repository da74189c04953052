package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// fillPrefix is where an incident's fill writes.
const fillPrefix = "/etcdlab/incident/"

// maxFillValue bounds Fill.ValueBytes: a transaction of fillBatch values
// stays under etcd's default request limit (1.5 MiB).
const (
	maxFillValue = 64 << 10
	fillBatch    = 16
	fillWorkers  = 4
	fillTimeout  = 10 * time.Minute
)

// defaultQuota is etcd's backend quota when none is set (2 GiB).
const defaultQuota = 2 << 30

// fill writes an incident's data (Fill) into the cluster conn reaches,
// whose backend quota is quota bytes (0: etcd's default), and returns a
// line for the cell's notes. UntilNoSpace ends without error at the
// cluster's first "database space exceeded".
func fill(ctx context.Context, conn etcdclient.Config, f Fill, quota float64) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, fillTimeout)
	defer cancel()
	conn.DialTimeout = etcdclient.DefaultDialTimeout
	cli, err := etcdclient.NewChecked(ctx, conn)
	if err != nil {
		return "", err
	}
	defer cli.Close()
	vb := f.ValueBytes
	if vb == 0 {
		vb = 64
	}
	value := strings.Repeat("x", vb)
	batch := fillBatch
	if vb*batch > 1<<20 {
		batch = max(1, (1<<20)/vb)
	}
	if quota <= 0 {
		quota = defaultQuota
	}
	noSpace := false
	next := make(chan int)
	errs := make(chan error, fillWorkers)
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	for range fillWorkers {
		go func() {
			for start := range next {
				ops := make([]clientv3.Op, 0, batch)
				for k := start; k < start+batch; k++ {
					key := k
					if f.Rewrites > 0 {
						key %= f.Keys // rewrites: the same keys again
					}
					ops = append(ops, clientv3.OpPut(fmt.Sprintf("%s%08d", fillPrefix, key), value))
				}
				_, err := cli.Txn(wctx).Then(ops...).Commit()
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var firstErr error
	k, running := 0, fillWorkers
feed:
	for f.Keys == 0 || k < f.Keys*(1+f.Rewrites) {
		if f.QuotaShare > 0 && k%(batch*4) == 0 && k > 0 {
			st, err := cli.Status(ctx, conn.Endpoints[0])
			if err != nil {
				firstErr = err
				break
			}
			if float64(st.DbSize) >= f.QuotaShare*quota {
				break
			}
		}
		select {
		case next <- k:
			k += batch
		case err := <-errs:
			firstErr, running = err, running-1 // that worker has returned
			break feed
		case <-ctx.Done():
			firstErr = ctx.Err()
			break feed
		}
	}
	close(next)
	for ; running > 0; running-- {
		if err := <-errs; err != nil && firstErr == nil {
			firstErr = err
		}
	}
	written := k
	if f.UntilNoSpace && (errors.Is(firstErr, rpctypes.ErrGRPCNoSpace) || errors.Is(firstErr, rpctypes.ErrNoSpace)) {
		noSpace, firstErr = true, nil
	}
	if firstErr != nil {
		return "", firstErr
	}
	note := fmt.Sprintf("filled %s keys of %s under %s", humanize.Comma(int64(written)), humanize.IBytes(uint64(vb)), fillPrefix)
	if f.Rewrites > 0 {
		note = fmt.Sprintf("filled %s keys of %s under %s, then wrote them %d times more (%s writes in transactions of %d)", humanize.Comma(int64(f.Keys)), humanize.IBytes(uint64(vb)), fillPrefix, f.Rewrites, humanize.Comma(int64(written)), batch)
	}
	if noSpace {
		note += ", until the cluster refused a write: database space exceeded"
	}
	defer func() {
		// Written back before the incident starts: a diagnosis of the
		// incident should not time the page cache's writeback of the fill.
		syscall.Sync()
	}()
	if f.Delete {
		resp, err := cli.Delete(ctx, fillPrefix, clientv3.WithPrefix())
		if err != nil {
			return note, err
		}
		if _, err := cli.Compact(ctx, resp.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
			return note, err
		}
		note += ", then deleted and compacted"
	}
	return note, nil
}
