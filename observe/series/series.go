// Package series records what etcd members say about themselves while a
// run lasts: it scrapes every member's /metrics every interval and turns
// consecutive scrapes into per-interval figures (histogram quantiles from
// bucket deltas, rates from counter increases, gauges as read) and into
// summaries over the run, as result.Server. For members etcdlab started it
// adds what their processes did to the disk, from /proc/PID/io.
//
// Scraping is read-only and runs beside the load on goroutines of its own:
// one per member, each scrape bounded by a deadline. A scrape that fails (a
// member killed by a fault, a timeout) is counted and the series goes on;
// the next scrape that succeeds closes an interval that spans the gap.
package series

import (
	"context"
	"crypto/tls"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
)

// Options say which members to scrape and how often.
type Options struct {
	// URLs are the members' metrics URLs (/metrics is added to a URL
	// without a path), one per member.
	URLs []string
	// Names are the members' names, in URLs' order; a missing or empty
	// name is the URL's host:port.
	Names []string
	// TLS is the client configuration for https URLs (nil: none).
	TLS *tls.Config
	// Interval is the time between scrapes (at least 100 ms).
	Interval time.Duration
	// Timeout bounds each scrape; 0 means twice Interval, at least 2 s
	// and at most 10 s (a member busy with the load answers late, not
	// never).
	Timeout time.Duration
	// Processes, for members etcdlab started, returns their processes in
	// URLs' order (a zero ID: unknown). It is called at every scrape, so a
	// member restarted by a fault is followed; nil means no /proc figures.
	// It must be safe to call from several goroutines.
	Processes func() []proc.ID
}

// MinInterval is the shortest scrape interval Start accepts.
const MinInterval = 100 * time.Millisecond

// Recorder scrapes members until Stop. Its owner calls Start, then Stop
// exactly once, from one goroutine: Stop ends the recorder's goroutines
// and closes its connections, also when ctx ended first (scraping stops
// then, and Stop returns what was recorded). The recorder's own
// goroutines, one per member, each own their member's recording and share
// only the options and the Scraper (safe for concurrent use); Stop reads
// the recordings after they have ended.
type Recorder struct {
	o       Options
	cancel  context.CancelFunc
	stop    chan struct{}
	wg      sync.WaitGroup
	members []*member
	scraper *metrics.Scraper
}

// families are the metric families the recorder reads; everything else a
// member serves is skipped before parsing.
func families() []metrics.Name {
	return []metrics.Name{metrics.HasLeader, metrics.IsLeader, metrics.ServerVersion, metrics.LeaderChanges,
		metrics.WALFsyncDuration, metrics.BackendCommitDuration, metrics.PeerRoundTripTime,
		metrics.SlowApplies, metrics.SlowReadIndexes, metrics.ProposalsPending, metrics.ProposalsFailed,
		metrics.GRPCHandled, metrics.DBTotalSize, metrics.OldDBTotalSize, metrics.DBInUse, metrics.OldDBInUse,
		metrics.ClientGRPCSent, metrics.ClientGRPCReceived, metrics.PeerSent, metrics.PeerReceived,
		metrics.ProcessCPUSeconds, metrics.ProcessResidentMemory, metrics.ProcessStartTime, metrics.WatchEventsSent,
	}
}

// Start validates o, takes every member's first scrape (the baseline, at
// most Timeout) and scrapes every Interval from then on until Stop or ctx
// ends. Bad options are invalid-input errors naming Options' fields.
func Start(ctx context.Context, o Options) (*Recorder, error) {
	if len(o.URLs) == 0 {
		return nil, invalid.Errorf("{URLs}: no metrics URL to scrape")
	}
	for _, u := range o.URLs {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, invalid.Errorf("{URLs}: %q is not an http(s) URL", u)
		}
	}
	if o.Interval < MinInterval {
		return nil, invalid.Errorf("{Interval} must be at least %s, not %s", MinInterval, o.Interval)
	}
	if o.Timeout <= 0 {
		o.Timeout = min(max(2*o.Interval, 2*time.Second), 10*time.Second)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Recorder{o: o, cancel: cancel, stop: make(chan struct{}),
		scraper: metrics.NewScraper(o.TLS, families(), []metrics.Name{metrics.GRPCHandled})}
	for i, u := range o.URLs {
		name := ""
		if i < len(o.Names) {
			name = o.Names[i]
		}
		if name == "" {
			name = hostPort(u)
		}
		r.members = append(r.members, &member{index: i, name: name, url: u, interval: o.Interval})
	}
	var baseline sync.WaitGroup
	for _, m := range r.members {
		baseline.Add(1)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.scrape(ctx, m)
			baseline.Done()
			r.loop(ctx, m)
		}()
	}
	baseline.Wait()
	return r, nil
}

// loop scrapes m every interval until Stop or ctx ends. At Stop it
// scrapes once more, to close the last interval, unless the scrape before
// failed (a member down or hung would only fail again, and make Stop wait).
func (r *Recorder) loop(ctx context.Context, m *member) {
	t := time.NewTicker(r.o.Interval)
	defer t.Stop()
	for {
		select { // Stop first: a tick that is also due must not delay it
		case <-r.stop:
			if !m.lastFailed {
				r.scrape(ctx, m)
			}
			return
		default:
		}
		select {
		case <-t.C:
			r.scrape(ctx, m)
		case <-r.stop:
		case <-ctx.Done():
			return
		}
	}
}

// scrape takes one scrape of m and, with the previous one, closes an
// interval.
func (r *Recorder) scrape(ctx context.Context, m *member) {
	s, err := r.scraper.Scrape(ctx, m.url, r.o.Timeout)
	m.lastFailed = err != nil
	if err != nil {
		if ctx.Err() == nil {
			m.fail(err)
		}
		return
	}
	var io *ioSample
	if r.o.Processes != nil {
		if ids := r.o.Processes(); m.index < len(ids) && ids[m.index].PID > 0 {
			io = readIO(ids[m.index])
		}
	}
	m.observe(s, io)
}

// Stop takes a last scrape of every member (waiting at most Timeout for a
// scrape under way, and Timeout for the last one), stops the
// recorder and returns what it recorded: per member, the points (at most
// result.MaxServerPoints, merged pairwise when there were more) and the
// summary over the run. An interval shorter than half the interval (the
// last one, say) is merged into the point before it.
func (r *Recorder) Stop() *result.Server {
	close(r.stop)
	r.wg.Wait()
	r.cancel()
	r.scraper.Close()
	out := &result.Server{IntervalSeconds: r.o.Interval.Seconds()}
	var versions []string
	for _, m := range r.members {
		out.Members = append(out.Members, m.series())
		out.Downsampled = out.Downsampled || m.downsampled
		for _, v := range m.versions {
			if !slices.Contains(versions, v) {
				versions = append(versions, v)
			}
		}
	}
	slices.Sort(versions)
	out.EtcdVersion = strings.Join(versions, ", ")
	return out
}

// hostPort is a URL's host:port, or the URL when it has none.
func hostPort(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return u
}
