package metrics

import (
	"context"
	"crypto/tls"
	"sync"
	"time"
)

// ScrapeAll scrapes every URL at once, each within timeout, and returns
// the snapshots and errors in urls' order (a nil snapshot where its scrape
// failed): the two ends of a window over a cluster's members, as doctor,
// profile and the maintenance job take them.
func ScrapeAll(ctx context.Context, urls []string, tlsCfg *tls.Config, timeout time.Duration) ([]*Snapshot, []error) {
	snaps := make([]*Snapshot, len(urls))
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() { snaps[i], errs[i] = Scrape(ctx, u, tlsCfg, timeout) })
	}
	wg.Wait()
	return snaps, errs
}
