package replay

import (
	"context"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/measure/profile"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/observe/series"
)

// scrapeTimeout bounds one member's scrape at a replay's start or end.
const scrapeTimeout = 10 * time.Second

// scrapes reads every member's metrics at once, for the figures of a
// window. Used by one goroutine at a time.
type scrapes struct {
	urls []string
	s    *metrics.Scraper
}

func newScrapes(o series.Options) *scrapes {
	return &scrapes{urls: o.URLs, s: metrics.NewScraper(o.TLS, profile.Families(), nil)}
}

// all scrapes every member in parallel; a member that does not answer in
// time is left out (nil), and the figures are the others'.
func (s *scrapes) all(ctx context.Context) []*metrics.Snapshot {
	out := make([]*metrics.Snapshot, len(s.urls))
	var wg sync.WaitGroup
	for i, u := range s.urls {
		wg.Go(func() {
			if snap, err := s.s.Scrape(ctx, u, scrapeTimeout); err == nil {
				out[i] = snap
			}
		})
	}
	wg.Wait()
	return out
}

func (s *scrapes) close() { s.s.Close() }
