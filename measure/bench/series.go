package bench

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/etcdlab/etcdlab/internal/proc"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/observe/series"
	"github.com/etcdlab/etcdlab/result"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// validateSeries checks MetricsURLs and ScrapeInterval.
func (c *Config) validateSeries() error {
	if c.ScrapeInterval < 0 || (c.ScrapeInterval > 0 && c.ScrapeInterval < series.MinInterval) {
		return invalid.Errorf("{ScrapeInterval} must be 0 (off) or at least %s, not %s", series.MinInterval, c.ScrapeInterval)
	}
	if len(c.MetricsURLs) > 0 && len(c.Conn.Endpoints) == 0 {
		return invalid.Errorf("{MetricsURLs} are for a cluster etcdlab did not start (with {Endpoints}); etcdlab finds its own members' metrics")
	}
	for _, u := range c.MetricsURLs {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return invalid.Errorf("{MetricsURLs}: %q is not an http(s) URL", u)
		}
	}
	return nil
}

// seriesOptions says how to scrape the members of the cluster t reaches:
// for a cluster etcdlab started, its members' metrics URLs, names and
// processes (followed across restarts); for another, MetricsURLs or else
// the client endpoints (etcd serves /metrics there too), named after the
// member whose client URL each is.
func (c *Config) seriesOptions(t *target, members *clientv3.MemberListResponse) series.Options {
	o := series.Options{Interval: c.ScrapeInterval}
	if t.local != nil {
		st := t.local.State()
		o.URLs = st.MetricsURLs
		for _, m := range st.Members {
			o.Names = append(o.Names, m.Name)
		}
		cl := t.local
		o.Processes = func() []proc.ID {
			var ids []proc.ID
			for _, m := range cl.State().Members {
				ids = append(ids, m.Process())
			}
			return ids
		}
	} else {
		o.URLs = c.MetricsURLs
		if len(o.URLs) == 0 {
			o.URLs = t.conn.Endpoints
		}
		for _, u := range o.URLs {
			o.Names = append(o.Names, memberAt(members, u))
		}
	}
	for _, u := range o.URLs {
		if strings.HasPrefix(u, "https://") {
			o.TLS, _ = t.conn.TLS() // the client's TLS: validated when connecting
			break
		}
	}
	return o
}

// memberAt is the name of the member one of whose client URLs is u, or ""
// (the recorder then names it by host:port).
func memberAt(members *clientv3.MemberListResponse, u string) string {
	if members == nil {
		return ""
	}
	for _, m := range members.Members {
		for _, cu := range m.ClientURLs {
			if strings.TrimSuffix(cu, "/") == strings.TrimSuffix(u, "/") {
				return m.Name
			}
		}
	}
	return ""
}

// scraper is bench's own Observer of the members: it scrapes every
// member each ScrapeInterval during each measured run (not warm-ups) and
// attaches what they said to the run (Run.Server). Run registers it when
// ScrapeInterval is set. Its first scrape is done when BeginRun returns:
// before any Gate, so agents start together after it.
type scraper struct {
	o   series.Options
	log io.Writer
	rec *series.Recorder // the run in progress's
}

func (s *scraper) BeginRun(ctx context.Context, r RunInfo) {
	if r.Warmup {
		return
	}
	rec, err := series.Start(ctx, s.o)
	if err != nil { // options checked by validate; say so rather than fail the run
		fmt.Fprintf(s.log, "server metrics not recorded: %v\n", err)
		return
	}
	s.rec = rec
}

func (s *scraper) EndRun(_ context.Context, _ RunInfo, run *result.Run, _ error) {
	if s.rec != nil {
		run.Server = s.rec.Stop()
		s.rec = nil
	}
}
