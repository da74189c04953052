package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// compactEvery compacts the cluster to (current revision - delta) every
// interval until stop is closed, as etcd benchmark's --compact-interval.
// It returns the number of compactions and the last error.
func compactEvery(ctx context.Context, t *target, interval time.Duration, delta int64, stop <-chan struct{}) (int, error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	n := 0
	var last error
	for {
		select {
		case <-stop:
			return n, last
		case <-ctx.Done():
			return n, last
		case <-tick.C:
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		st, err := t.safety().Status(cctx)
		if err == nil {
			if rev := st.Header.Revision - delta; rev > 0 {
				_, err = t.cli.Compact(cctx, rev)
				if err == nil {
					n++
				}
			}
		}
		cancel()
		if err != nil {
			last = err
		}
	}
}

// hashKV reports the KV hash of the first endpoint, as etcd benchmark's
// --check-hashkv.
func hashKV(ctx context.Context, t *target) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ep := t.cli.Endpoints()[0]
	began := time.Now()
	r, err := t.cli.HashKV(ctx, ep, 0)
	if err != nil {
		return "", fmt.Errorf("hashkv of %s: %w", ep, etcdclient.Explain(err))
	}
	return fmt.Sprintf("HashKV of %s: %d at revision %d (took %s)", ep, r.Hash, r.Header.Revision, time.Since(began).Round(time.Millisecond)), nil
}
