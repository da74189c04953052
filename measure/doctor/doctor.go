// Package doctor diagnoses a live etcd cluster without writing to it: it
// reads the membership and every member's status, probes reads and TCP
// connects and watches the members' metrics over a window, then hands the
// figures to the judge, which ranks the causes. It never writes a key,
// compacts or defragments: every request it sends is a read (Range,
// MemberList, Status, AlarmList with the GET action) or an HTTP GET of
// /metrics.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	judgedoctor "github.com/etcdlab/etcdlab/judge/doctor"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/measure/disk"
	"github.com/etcdlab/etcdlab/observe/census"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/observe/logscan"
	"github.com/etcdlab/etcdlab/observe/promhist"
	"github.com/etcdlab/etcdlab/result"
)

// DefaultWindow is how long the members' metrics are watched and the
// probes run: long enough for rates and a few dozen probes, short enough
// for a diagnosis in under 15 s.
const DefaultWindow = 8 * time.Second

// Options configure a diagnosis.
type Options struct {
	// Conn reaches the cluster (its endpoints are required).
	Conn etcdclient.Config
	// MetricsURLs are the members' metrics URLs, in the order of the
	// endpoints; default: the client endpoints (etcd serves /metrics
	// there).
	MetricsURLs []string
	// Window is how long metrics are watched and probes run
	// (DefaultWindow when 0).
	Window time.Duration
	// ProbeInterval spaces each member's probes (default 200 ms).
	ProbeInterval time.Duration
	// Keyspace runs the keyspace census after the window: every key and
	// value read once, serializable, in pages of KeyspacePage (default
	// 500) spaced by KeyspacePace (default 20 ms), from a follower when
	// one answers.
	Keyspace     bool
	KeyspacePage int64
	KeyspacePace time.Duration
	// DataDir, when doctor runs on a member's node, is a directory on
	// that member's data filesystem: etcd's disk job (package disk, fio's
	// etcd job) runs there after the window, for at most DiskRuntime
	// (default 8 s). It writes and removes its own test file, nothing of
	// etcd's.
	DataDir     string
	DiskRuntime time.Duration
	// Logs is the members' logs to read (logscan.Read: a file, a
	// directory of one file per member, or "-" for Stdin); empty: none.
	Logs  string
	Stdin io.Reader
	// Since limits the logs to lines this recent (0: every line) and is
	// the range of the Prometheus history (0: promhist's default, 6 h).
	Since time.Duration
	// Prometheus reads the members' history from this Prometheus server
	// (package promhist); PrometheusSelector narrows etcd's series
	// (`job="etcd"`). Empty URL: no history.
	Prometheus         string
	PrometheusSelector string
	// Log receives one progress line per step; nil discards them.
	Log io.Writer
}

// requestTimeout bounds every request doctor sends.
const requestTimeout = 3 * time.Second

func (o *Options) validate() error {
	if len(o.Conn.Endpoints) == 0 {
		return invalid.Errorf("{Endpoints} are required: doctor diagnoses a running cluster")
	}
	if len(o.MetricsURLs) > 0 && len(o.MetricsURLs) != len(o.Conn.Endpoints) {
		return invalid.Errorf("{MetricsURLs} must name one URL per endpoint (%d endpoints, %d URLs)", len(o.Conn.Endpoints), len(o.MetricsURLs))
	}
	for _, d := range []struct {
		name string
		v    int64
	}{{"{Window}", int64(o.Window)}, {"{ProbeInterval}", int64(o.ProbeInterval)}, {"{KeyspacePage}", o.KeyspacePage}, {"{KeyspacePace}", int64(o.KeyspacePace)}, {"{Since}", int64(o.Since)}, {"{DiskRuntime}", int64(o.DiskRuntime)}} {
		if d.v < 0 {
			return invalid.Errorf(d.name + " must not be negative")
		}
	}
	return o.validateFiles()
}

// Run diagnoses the cluster. Errors are for options that are not valid,
// and an *UnreachableError, at once, when no endpoint answers; anything
// else that could not be seen once running is said in the document (a
// step's Unseen, a member's Error).
func Run(ctx context.Context, o Options) (*result.Document, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.ProbeInterval == 0 {
		o.ProbeInterval = 200 * time.Millisecond
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	tlsCfg, err := o.Conn.TLS()
	if err != nil {
		return nil, err
	}
	// Prometheus has its own TLS and credentials (in its URL), not the
	// cluster's.
	hist := promhist.Options{URL: o.Prometheus, Since: o.Since, Selector: o.PrometheusSelector}
	if o.Prometheus != "" {
		if err := hist.Validate(); err != nil {
			return nil, err
		}
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindDoctor, CreatedAt: time.Now().UTC(),
		Environment: envinfo.Collect(), Runs: []result.Run{}}
	d := &result.Doctor{WindowSeconds: o.Window.Seconds()}
	doc.Doctor = d

	fmt.Fprintln(o.Log, "doctor: membership and status")
	d.Members, doc.Notes = membership(ctx, o.Conn)
	if err := anyReachable(d.Members); err != nil {
		return nil, err
	}

	// Members the endpoints did not name (from the member list) are
	// scraped at their client URL.
	urls := make([]string, len(d.Members))
	for i, m := range d.Members {
		urls[i] = m.Endpoint
		if i < len(o.MetricsURLs) {
			urls[i] = o.MetricsURLs[i]
		}
		d.Members[i].MetricsURL = urls[i]
	}
	// The history is read from Prometheus while the window runs.
	var history sync.WaitGroup
	if o.Prometheus != "" {
		fmt.Fprintln(o.Log, "doctor: reading the history from Prometheus")
		history.Go(func() {
			h, _ := promhist.History(ctx, hist) // validated above: only Unseen
			d.History = &h
		})
	}
	fmt.Fprintf(o.Log, "doctor: watching metrics, reads and connects for %s\n", o.Window)
	before := scrapeAll(ctx, urls, tlsCfg)
	probes := probeAll(ctx, o, d.Members)
	after := scrapeAll(ctx, urls, tlsCfg)
	atEnd(ctx, o.Conn, d.Members)
	history.Wait()
	for i := range d.Members {
		m := &d.Members[i]
		m.ReadSerial, m.ReadLinear, m.ConnectSeconds = probes[i].figures()
		if after[i].err != nil {
			m.MetricsError = after[i].err.Error()
			continue
		}
		m.UptimeSeconds = uptime(after[i].snap)
		if m.Version == "" {
			m.Version = serverVersion(after[i].snap) // a member that answered only at the end
		}
		if before[i].err != nil {
			m.MetricsError = before[i].err.Error()
			continue
		}
		m.Metrics = windowMetrics(before[i].snap, after[i].snap)
		if m.Version == "" {
			m.Version = serverVersion(after[i].snap)
		}
		if q, ok := quotaOf(after[i].snap); ok {
			m.QuotaBytes = q
		}
	}
	if o.DataDir != "" {
		rt := o.DiskRuntime
		if rt <= 0 {
			rt = 8 * time.Second
		}
		fmt.Fprintf(o.Log, "doctor: etcd's disk job on %s (at most %s)\n", o.DataDir, rt)
		dd, err := disk.Run(ctx, disk.Options{Dir: o.DataDir, Runtime: rt})
		if err != nil {
			doc.Notes = append(doc.Notes, "disk job on "+o.DataDir+": "+err.Error())
		} else {
			doc.Disk, doc.Verdicts = dd.Disk, dd.Verdicts
		}
	}
	if o.Logs != "" {
		fmt.Fprintln(o.Log, "doctor: reading the logs")
		lo := logscan.Options{}
		if o.Since > 0 {
			lo.Since = time.Now().Add(-o.Since)
		}
		c, err := logscan.Read(ctx, o.Logs, o.Stdin, lo)
		if err != nil {
			doc.Notes = append(doc.Notes, "logs: "+err.Error())
		} else {
			d.Logs = &c
		}
	}
	if o.Keyspace {
		fmt.Fprintln(o.Log, "doctor: keyspace census")
		d.Keyspace, err = keyspace(ctx, o, d.Members)
		if err != nil {
			doc.Notes = append(doc.Notes, err.Error())
		}
	}
	judgedoctor.Judge(doc)
	return doc, nil
}

// UnreachableError is a diagnosis that could not start: no endpoint
// answered, so there is nothing to watch (an empty window would report
// figures nobody measured).
type UnreachableError struct {
	// Members are what each endpoint said, in the order given.
	Members []result.DoctorMember
}

func (e *UnreachableError) Error() string {
	parts := make([]string, len(e.Members))
	for i, m := range e.Members {
		parts[i] = m.Endpoint
		if m.Error != "" {
			parts[i] += ": " + strings.ReplaceAll(m.Error, "\n", " ")
		}
	}
	return "no endpoint answered (" + strings.Join(parts, "; ") + ")"
}

// anyReachable is an *UnreachableError when no member answered.
func anyReachable(members []result.DoctorMember) error {
	for _, m := range members {
		if m.Reachable {
			return nil
		}
	}
	return &UnreachableError{Members: members}
}

// keyspace runs the census on a reachable follower, else on any reachable
// member. The error says what cut it short or why it could not run.
func keyspace(ctx context.Context, o Options, members []result.DoctorMember) (*result.KeyspaceCensus, error) {
	pick := -1
	for i, m := range members {
		if m.Reachable && (pick < 0 || (members[pick].IsLeader && !m.IsLeader)) {
			pick = i
		}
	}
	if pick < 0 {
		return nil, errors.New("keyspace census: no member answered")
	}
	cli, err := one(o.Conn, members[pick].Endpoint)
	if err != nil {
		return nil, fmt.Errorf("keyspace census: %w", err)
	}
	defer cli.Close()
	c := census.Read(ctx, cli, census.Options{Page: o.KeyspacePage, Pace: o.KeyspacePace, Timeout: requestTimeout})
	if c.Stopped != "" {
		return c.KeyspaceCensus(), errors.New("keyspace census on " + members[pick].Name + ": " + c.Stopped)
	}
	return c.KeyspaceCensus(), nil
}

// parallel runs f for 0..n-1 concurrently and waits.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(i) })
	}
	wg.Wait()
}
