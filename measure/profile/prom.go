package profile

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/observe/promhist"
	"github.com/etcdlab/etcdlab/result"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// Prometheus history defaults: a day, in at most maxSeriesPoints steps.
const (
	DefaultSince    = 24 * time.Hour
	maxSeriesPoints = 1500
	// minRateWindow is rate()'s shortest default range: four scrapes at
	// Prometheus' usual 15 s.
	minRateWindow = time.Minute
)

// promOptions is o.Prometheus with profile's defaults: Since a day.
func (o *Options) promOptions() promhist.Options {
	p := o.Prometheus
	if p.Since == 0 {
		p.Since = DefaultSince
	}
	return p
}

// promSource reads the load's curve from one Prometheus server. It is
// used by one goroutine.
type promSource struct {
	api        v1.API
	shown      string // the URL without user information
	since      time.Duration
	until      time.Time // the span's end; zero: now
	step, rate time.Duration
	sel        string
	timeout    time.Duration
	close      func()
}

// promReady validates the Prometheus options and reads the token file;
// nil when no Prometheus was asked for. Nothing is sent yet.
func (o *Options) promReady() (*promSource, error) {
	if o.Prometheus.URL == "" {
		return nil, nil
	}
	p := o.promOptions()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if o.PrometheusTokenFile != "" {
		b, err := os.ReadFile(o.PrometheusTokenFile)
		if err != nil {
			return nil, invalid.Errorf("{PrometheusTokenFile}: %s", firstLine(err.Error()))
		}
		p.BearerToken = strings.TrimSpace(string(b))
	}
	u, _ := url.Parse(p.URL) // validated
	shown := *u
	shown.User = nil
	s := &promSource{shown: shown.String(), since: p.Since, until: p.Until, sel: strings.Trim(strings.TrimSpace(p.Selector), "{}"), timeout: p.Timeout}
	if s.timeout == 0 {
		s.timeout = promhist.DefaultTimeout
	}
	s.step = p.Step
	if s.step == 0 {
		s.step = max(time.Duration(math.Ceil(p.Since.Seconds()/(maxSeriesPoints-1)))*time.Second, time.Second)
	}
	if p.Since/s.step+1 > maxSeriesPoints*8 {
		return nil, invalid.Errorf("{Step} %s makes %d points of {Since} %s: at most %d", s.step, p.Since/s.step+1, p.Since, maxSeriesPoints*8)
	}
	s.rate = p.RateWindow
	if s.rate == 0 {
		s.rate = max(s.step, minRateWindow)
	}
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: (&net.Dialer{Timeout: s.timeout}).DialContext,
		TLSClientConfig: p.TLS, TLSHandshakeTimeout: s.timeout, ForceAttemptHTTP2: true}
	s.close = tr.CloseIdleConnections
	var rt http.RoundTripper = tr
	if p.BearerToken != "" {
		rt = bearer{token: p.BearerToken, next: tr}
	}
	c, err := api.NewClient(api.Config{Address: u.String(), RoundTripper: rt})
	if err != nil {
		return nil, invalid.Errorf("{URL}: %s", s.shown)
	}
	s.api = v1.NewAPI(c)
	return s, nil
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// vec is a selector of name with extra matchers.
func (s *promSource) vec(name metrics.Name, matchers ...string) string {
	if s.sel != "" {
		matchers = append(matchers, s.sel)
	}
	if len(matchers) == 0 {
		return string(name)
	}
	return string(name) + "{" + strings.Join(matchers, ",") + "}"
}

// queries are the PromQL expressions of the series: the unary requests
// per method and the keepalives, rates summed over the selector's
// instances (requests are counted on the member that handled them).
func (s *promSource) queries() (byMethod, keepalives string) {
	w := model.Duration(s.rate).String()
	byMethod = fmt.Sprintf("sum by (%s) (rate(%s[%s]))", metrics.GRPCMethodLabel, s.vec(metrics.GRPCHandled, metrics.GRPCTypeLabel+`="unary"`), w)
	keepalives = fmt.Sprintf("sum(rate(%s[%s]))", s.vec(GRPCMsgSent, metrics.GRPCMethodLabel+`="`+keepaliveMethod+`"`), w)
	return byMethod, keepalives
}

// series reads the curve over [until-since, until] (until: now when
// zero): per step, every
// operation's rate and their sum, and the operations' means over the
// span (rows with their PromQL in From). Failures are notes, never
// errors. It closes its connections when done.
func (s *promSource) series(ctx context.Context) (*replay.Series, []replay.Operation, []string) {
	defer s.close()
	end := s.until
	if end.IsZero() {
		end = time.Now().Truncate(time.Second)
		s.until = end // the span read, for the profile's source
	}
	r := v1.Range{Start: end.Add(-s.since), End: end, Step: s.step}
	byMethod, ka := s.queries()
	ops := map[string]string{}
	for _, g := range grpcOps() {
		ops[g.method] = g.op
	}
	points := map[int64]*replay.Point{}
	var notes []string
	add := func(op string, m model.Matrix) {
		for _, ss := range m {
			for _, v := range ss.Values {
				f := float64(v.Value)
				if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
					continue
				}
				pt := points[int64(v.Timestamp)]
				if pt == nil {
					pt = &replay.Point{At: v.Timestamp.Time().UTC().Format(time.RFC3339), Ops: map[string]float64{}}
					points[int64(v.Timestamp)] = pt
				}
				pt.Ops[op] += f
				pt.Rate += f
			}
		}
	}
	for _, q := range []struct {
		expr string
		add  func(model.Matrix)
	}{
		{byMethod, func(m model.Matrix) {
			for _, ss := range m {
				if op, ok := ops[string(ss.Metric[metrics.GRPCMethodLabel])]; ok {
					add(op, model.Matrix{ss})
				}
			}
		}},
		{ka, func(m model.Matrix) { add(replay.OpKeepalive, m) }},
	} {
		m, err := s.query(ctx, q.expr, r)
		if err != nil {
			notes = append(notes, "Prometheus history: "+err.Error())
			return nil, nil, notes
		}
		q.add(m)
	}
	if len(points) == 0 {
		return nil, nil, append(notes, fmt.Sprintf("Prometheus history: no requests in %s's series over %s (%s)", s.shown, model.Duration(s.since), byMethod))
	}
	keys := make([]int64, 0, len(points))
	for k := range points {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	out := &replay.Series{Step: result.Duration(s.step), From: fmt.Sprintf("Prometheus at %s: %s and %s, step %s", s.shown, byMethod, ka, s.step)}
	sums := map[string]float64{}
	for _, k := range keys {
		pt := points[k]
		out.Points = append(out.Points, *pt)
		for op, v := range pt.Ops {
			sums[op] += v
		}
	}
	var means []replay.Operation
	for _, op := range replay.Ops() {
		if v := sums[op] / float64(len(keys)); v > 0 {
			means = append(means, replay.Operation{Op: op, Rate: v, From: fmt.Sprintf("mean over %s of Prometheus' %s", model.Duration(s.since), out.From)})
		}
	}
	return out, means, notes
}

// query runs one range query within the timeout; its error is one line
// without the URL's user information.
func (s *promSource) query(ctx context.Context, expr string, r v1.Range) (model.Matrix, error) {
	qctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	v, _, err := s.api.QueryRange(qctx, expr, r)
	if err != nil {
		if qctx.Err() != nil {
			return nil, fmt.Errorf("no answer from %s within %s", s.shown, s.timeout)
		}
		return nil, fmt.Errorf("%s: %s", s.shown, redactURL(firstLine(err.Error())))
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Errorf("%s answered a %s, not a matrix", s.shown, v.Type())
	}
	return m, nil
}

// redactURL drops user information from URLs in a message.
func redactURL(msg string) string {
	for _, f := range strings.Fields(msg) {
		f = strings.Trim(f, `"':,`)
		if u, err := url.Parse(f); err == nil && u.User != nil {
			u.User = nil
			msg = strings.ReplaceAll(msg, f, u.String())
		}
	}
	return msg
}

// mergeHistory puts the span's means into the window's rows: a row's
// rate becomes its mean over the span (its sizes stay the window's), and
// operations only the history saw are added.
func mergeHistory(p *replay.Profile, means []replay.Operation) {
	for _, m := range means {
		found := false
		for i := range p.Operations {
			if o := &p.Operations[i]; o.Op == m.Op && o.Prefix == "" {
				o.From = fmt.Sprintf("rate: %s (the window's: %.4g/s); %s", m.From, o.Rate, o.From)
				o.Rate = m.Rate
				found = true
			}
		}
		if !found {
			p.Operations = append(p.Operations, m)
		}
	}
	p.Totals.RequestsPerSecond = 0
	for _, o := range p.Operations {
		p.Totals.RequestsPerSecond += o.Rate
	}
}
