// Package profile is `etcdlab profile`: a live cluster's load shape, read
// without writing to it, as a load/replay profile that `etcdlab bench
// replay` plays on another cluster. It watches every member's metrics
// over a window (FromWindow derives the operations, watches, leases and
// totals from the two scrapes), optionally reads the load's curve from a
// Prometheus server (Series), splits the requests across Kubernetes
// resources from kube-apiservers' metrics, and takes a census of the
// keyspace and the leases.
//
// It is read-only like measure/doctor: every request it sends to etcd is a
// serializable Range, MemberList, Status, LeaseLeases or LeaseTimeToLive,
// and every other one an HTTP GET (/metrics, Prometheus' query API).
package profile

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/observe/promhist"
	"github.com/etcdlab/etcdlab/result"
)

// Defaults of Options.
const (
	// DefaultWindow is how long the members' metrics are watched: a
	// minute of load, so that a profile answers within about 90 s.
	DefaultWindow = 60 * time.Second
	// DefaultCensusMaxRequests bounds the census's requests (pages of
	// keys and lease lookups).
	DefaultCensusMaxRequests = 1000
	// DefaultCensusPage is the keys per page of the census.
	DefaultCensusPage = 500
)

// requestTimeout bounds every request profile sends.
const requestTimeout = 3 * time.Second

// Options configure a profile. The zero value, plus Conn's endpoints,
// watches the members for DefaultWindow and takes no census.
type Options struct {
	// Conn reaches the cluster (its endpoints are required).
	Conn etcdclient.Config
	// MetricsURLs are the members' metrics URLs; default: every member's
	// client URL from the member list (etcd serves /metrics there), or
	// the endpoints when the list cannot be read.
	MetricsURLs []string
	// Window is how long the members' metrics are watched
	// (DefaultWindow when 0).
	Window time.Duration
	// Prometheus, when its URL is set, is read for the load's curve over
	// its Since (default 24 h) up to its Until (default now), at its Step (default: ≤ 1,500 points),
	// for the series its Selector matches; its TLS and BearerToken are
	// its own, not the cluster's. PrometheusTokenFile, if set, holds the
	// bearer token (read before anything is dialled).
	Prometheus          promhist.Options
	PrometheusTokenFile string
	// APIServerMetrics are kube-apiservers' metrics URLs, scraped at both
	// ends of the window to split etcd's requests across Kubernetes
	// resources; APIServerCACert and APIServerTokenFile are their CA
	// bundle and bearer token (defaults: the system's roots, none).
	APIServerMetrics   []string
	APIServerCACert    string
	APIServerTokenFile string
	// Census reads the keyspace (every key once, serializable, in pages
	// of CensusPage) and samples the leases, in at most
	// CensusMaxRequests requests.
	Census            bool
	CensusMaxRequests int
	CensusPage        int64
	// Log receives progress lines and the census's budget message; nil
	// discards them.
	Log io.Writer
}

// Validate checks o without dialling anything; its errors are one-line
// invalid.Errors naming Options' fields.
func (o *Options) Validate() error {
	if len(o.Conn.Endpoints) == 0 {
		return invalid.Errorf("{Endpoints} are required: profile reads a running cluster")
	}
	if o.Window < 0 {
		return invalid.Errorf("{Window} must not be negative, not %s", o.Window)
	}
	if o.CensusMaxRequests < 0 || o.CensusPage < 0 {
		return invalid.Errorf("{CensusMaxRequests} and {CensusPage} must not be negative")
	}
	for _, u := range o.MetricsURLs {
		if err := httpURL("MetricsURLs", u); err != nil {
			return err
		}
	}
	for _, u := range o.APIServerMetrics {
		if err := httpURL("APIServerMetrics", u); err != nil {
			return err
		}
	}
	if o.Prometheus.URL == "" {
		if o.Prometheus.Since != 0 || o.Prometheus.Step != 0 || o.Prometheus.Selector != "" || o.PrometheusTokenFile != "" || !o.Prometheus.Until.IsZero() {
			return invalid.Errorf("{Since}, {Until}, {Step}, {Selector} and {PrometheusTokenFile} need {URL}: the history comes from a Prometheus server")
		}
	} else if err := o.promOptions().Validate(); err != nil {
		return err
	}
	for _, f := range []struct{ field, path string }{{"PrometheusTokenFile", o.PrometheusTokenFile}, {"APIServerCACert", o.APIServerCACert}, {"APIServerTokenFile", o.APIServerTokenFile}} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			return invalid.Errorf("{%s}: %s", f.field, firstLine(err.Error()))
		}
	}
	if (o.APIServerCACert != "" || o.APIServerTokenFile != "") && len(o.APIServerMetrics) == 0 {
		return invalid.Errorf("{APIServerCACert} and {APIServerTokenFile} need {APIServerMetrics}")
	}
	return nil
}

// httpURL checks that raw is an http(s) URL with a host; the message never
// shows its user information.
func httpURL(field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		shown := raw
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			shown = "…" + raw[i:]
		}
		return invalid.Errorf("{%s}: %q is not an http(s) URL", field, shown)
	}
	return nil
}

// UnreachableError is a profile that could not start: no member's
// metrics could be scraped, so there is no window to derive from.
type UnreachableError struct {
	// URLs are the metrics URLs tried; Err what the first one said.
	URLs []string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("no member's metrics could be scraped (%s): %v", strings.Join(e.URLs, ", "), e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Run profiles the cluster: membership, the window, then (if asked) the
// census; Prometheus' history is read while the window runs. Errors are
// invalid.Errors for options, an *UnreachableError when no member's
// metrics answer at the window's start, and the context's error when it
// ends first; anything else that could not be read is said in the
// profile's Unattributed. Run sends only reads (see the package's doc).
func Run(ctx context.Context, o Options) (*replay.Profile, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	tlsCfg, err := o.Conn.TLS()
	if err != nil {
		return nil, err
	}
	prom, err := o.promReady()
	if err != nil {
		return nil, err
	}
	api, err := o.apiservers()
	if err != nil {
		return nil, err
	}
	urls, notes := o.metricsURLs(ctx)
	fmt.Fprintf(o.Log, "profile: %d members' metrics: %s\n", len(urls), strings.Join(urls, ", "))

	var history sync.WaitGroup
	var hist *replay.Series
	var histOps []replay.Operation
	var histNotes []string
	if prom != nil {
		fmt.Fprintf(o.Log, "profile: reading the load's history from Prometheus at %s\n", prom.shown)
		history.Go(func() { hist, histOps, histNotes = prom.series(ctx) })
	}
	apiBefore := api.scrape(ctx)
	before := scrapeMembers(ctx, urls, tlsCfg)
	if err := anyScraped(urls, before); err != nil {
		history.Wait()
		return nil, err
	}
	fmt.Fprintf(o.Log, "profile: watching the members' metrics for %s\n", o.Window)
	select {
	case <-ctx.Done():
		history.Wait()
		return nil, ctx.Err()
	case <-time.After(o.Window):
	}
	after := scrapeMembers(ctx, urls, tlsCfg)
	apiAfter := api.scrape(ctx)
	history.Wait()

	p, err := FromWindow(snaps(before), snaps(after), o.Window)
	if err != nil {
		return nil, err
	}
	p.Unattributed = append(notes, p.Unattributed...)
	for i := range urls {
		if before[i].err != nil {
			p.Unattributed = append(p.Unattributed, before[i].err.Error())
		} else if after[i].err != nil {
			p.Unattributed = append(p.Unattributed, after[i].err.Error())
		}
	}
	if prom != nil {
		p.Source.Sources = append(p.Source.Sources, "prometheus")
		p.Source.Since = result.Duration(prom.since)
		p.Source.Until = prom.until.UTC().Format(time.RFC3339)
		p.Series = hist
		mergeHistory(p, histOps)
		p.Unattributed = append(p.Unattributed, histNotes...)
	}
	if o.Census {
		fmt.Fprintln(o.Log, "profile: census of the keyspace and the leases")
		o.census(ctx, p)
	}
	if len(o.APIServerMetrics) > 0 {
		attribute(p, apiBefore, apiAfter)
	} else {
		p.Unattributed = append(p.Unattributed, "reads per resource: no kube-apiserver metrics (--apiserver-metrics)")
	}
	p.Source.Taken = time.Now().UTC().Format(time.RFC3339)
	return p, nil
}

// memberScrape is one member's scrape, or why there is none.
type memberScrape struct {
	snap *metrics.Snapshot
	err  error
}

// scrapeMembers scrapes every URL at once, each within requestTimeout.
func scrapeMembers(ctx context.Context, urls []string, tlsCfg *tls.Config) []memberScrape {
	snaps, errs := metrics.ScrapeAll(ctx, urls, tlsCfg, requestTimeout)
	out := make([]memberScrape, len(urls))
	for i := range out {
		out[i] = memberScrape{snap: snaps[i], err: errs[i]}
	}
	return out
}

// Scrape scrapes every member's metrics URL at once, each within its own
// deadline, and returns the snapshots in urls' order, nil where a scrape
// failed: the two ends of a window as FromWindow takes them (bench replay
// scores its target with them). Safe for concurrent use.
func Scrape(ctx context.Context, urls []string, tlsCfg *tls.Config) []*metrics.Snapshot {
	return snaps(scrapeMembers(ctx, urls, tlsCfg))
}

// anyScraped is an *UnreachableError when no scrape succeeded.
func anyScraped(urls []string, s []memberScrape) error {
	var errs []error
	for _, m := range s {
		if m.err == nil {
			return nil
		}
		errs = append(errs, m.err)
	}
	return &UnreachableError{URLs: urls, Err: errors.Join(errs...)}
}

// snaps is the snapshots of s, nil where a scrape failed.
func snaps(s []memberScrape) []*metrics.Snapshot {
	out := make([]*metrics.Snapshot, len(s))
	for i, m := range s {
		out[i] = m.snap
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
