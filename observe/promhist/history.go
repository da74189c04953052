package promhist

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/observe/metrics"
	"github.com/etcdlab/etcdlab/result"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// History asks the Prometheus at o.URL for the etcd members' figures over
// [Until-Since, Until]. The error is an invalid-input error (package
// invalid) for bad options, and nil otherwise: a server that is down or is
// not Prometheus, a query that fails or times out, a Prometheus without
// etcd series, a member without some figure, all leave what they are and
// why in the result's Unseen. Quantiles are the worst of PromQL's
// histogram_quantile over each rate window (windows without observations
// skipped; a value in the lowest bucket recorded as its bound, as
// result.LowestDiskBucket says); counters are increase() over the whole
// range, rounded to whole events (increase() extrapolates the samples'
// span to the range's ends). The queries run one after the other, each
// bounded by o.Timeout, so History returns within 12 timeouts (it stops
// at the first query when the server does not answer, and when ctx ends);
// it starts no goroutine that outlives it and closes its connections.
// Concurrent calls are independent (o.TLS is only read).
func History(ctx context.Context, o Options) (result.DoctorHistory, error) {
	s, err := o.settings(time.Now())
	if err != nil {
		return result.DoctorHistory{}, err
	}
	h := result.DoctorHistory{URL: s.shown, StartUnix: unix(s.start), EndUnix: unix(s.end),
		RateWindow: s.window, StepSeconds: s.step.Seconds(), Instances: []result.InstanceHistory{}}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         (&net.Dialer{Timeout: s.timeout}).DialContext,
		TLSClientConfig:     o.TLS,
		TLSHandshakeTimeout: s.timeout,
		ForceAttemptHTTP2:   true,
	}
	defer tr.CloseIdleConnections()
	var rt http.RoundTripper = tr
	if o.BearerToken != "" {
		rt = bearer{token: o.BearerToken, next: tr}
	}
	client, err := api.NewClient(api.Config{Address: s.address, RoundTripper: rt})
	if err != nil { // settings parsed the same URL
		return result.DoctorHistory{}, invalid.Errorf("{URL}: %v", err)
	}
	q := &querier{api: v1.NewAPI(client), s: s, h: &h}
	q.run(ctx)
	return h, nil
}

// querier sends the queries of one History call and fills its result.
type querier struct {
	api     v1.API
	s       settings
	h       *result.DoctorHistory
	members map[string]*result.InstanceHistory
}

// run sends the queries in turn: first which members there are, then each
// figure.
func (q *querier) run(ctx context.Context) {
	found, ok := q.instant(ctx, "etcd members", instancesExpr(q.s))
	if !ok {
		return
	}
	q.members = map[string]*result.InstanceHistory{}
	for _, smp := range found {
		if inst := string(smp.Metric["instance"]); inst != "" {
			q.members[inst] = &result.InstanceHistory{Instance: inst}
		}
	}
	if len(q.members) == 0 {
		q.unseen("etcd members: Prometheus at %s has no etcd series (%s) from %s to %s", q.s.shown, vec(metrics.HasLeader, q.s.sel),
			q.s.start.UTC().Format(time.RFC3339), q.s.end.UTC().Format(time.RFC3339))
		return
	}
	defer q.collect()
	for _, f := range rangeFigures(q.s) {
		if m, ok := q.ranged(ctx, f.what, f.expr); ok {
			q.fill(f, m)
		} else if ctx.Err() != nil {
			return
		}
	}
	if m, ok := q.ranged(ctx, "version", versionExpr(q.s)); ok {
		q.versions(m)
	} else if ctx.Err() != nil {
		return
	}
	for _, f := range counterFigures(q.s) {
		incs, ok := q.instant(ctx, f.what, f.expr)
		if !ok {
			if ctx.Err() != nil {
				return
			}
			continue
		}
		got := map[string]bool{}
		for _, smp := range incs {
			v := float64(smp.Value)
			if m := q.members[string(smp.Metric["instance"])]; m != nil && finite(v) {
				f.set(m, math.Round(v)) // events are whole
				got[m.Instance] = true
			}
		}
		q.missing(f.what, got, "no series with two samples in the range")
	}
}

// fill sets a range figure on every member from its series.
func (q *querier) fill(f rangeFigure, m model.Matrix) {
	got := map[string]bool{}
	for _, ss := range m {
		mem := q.members[string(ss.Metric["instance"])]
		if mem == nil {
			continue
		}
		best, at, seen := 0.0, 0.0, false
		for _, p := range ss.Values {
			v := float64(p.Value)
			if !finite(v) { // histogram_quantile of a window without observations
				continue
			}
			if !seen || v > best || f.last {
				best, at, seen = v, float64(p.Timestamp)/1000, true
			}
		}
		if seen {
			f.set(mem, max(best, f.floor), at)
			got[mem.Instance] = true
		}
	}
	q.missing(f.what, got, f.hint)
}

// versions sets each member's latest version.
func (q *querier) versions(m model.Matrix) {
	latest := map[string]model.Time{}
	for _, ss := range m {
		inst := string(ss.Metric["instance"])
		mem := q.members[inst]
		if mem == nil || len(ss.Values) == 0 {
			continue
		}
		if t := ss.Values[len(ss.Values)-1].Timestamp; mem.Version == "" || t > latest[inst] {
			mem.Version, latest[inst] = string(ss.Metric[metrics.ServerVersionLabel]), t
		}
	}
	got := map[string]bool{}
	for inst := range latest {
		got[inst] = true
	}
	q.missing("version", got, "no etcd_server_version (etcd 3.4 and later have it)")
}

// missing notes the members without a figure.
func (q *querier) missing(what string, got map[string]bool, hint string) {
	var none []string
	for inst := range q.members {
		if !got[inst] {
			none = append(none, inst)
		}
	}
	if len(none) > 0 {
		slices.Sort(none)
		q.unseen("%s of %s: %s", what, strings.Join(none, ", "), hint)
	}
}

// collect puts the members in the result, in order of instance.
func (q *querier) collect() {
	for _, m := range q.members {
		q.h.Instances = append(q.h.Instances, *m)
	}
	slices.SortFunc(q.h.Instances, func(a, b result.InstanceHistory) int { return strings.Compare(a.Instance, b.Instance) })
}

// instant sends an instant query at the range's end.
func (q *querier) instant(ctx context.Context, what, expr string) (model.Vector, bool) {
	v, ok := q.query(ctx, what, expr, func(ctx context.Context) (model.Value, v1.Warnings, error) {
		return q.api.Query(ctx, expr, q.s.end, v1.WithTimeout(q.s.timeout))
	})
	vec, isVec := v.(model.Vector)
	if ok && !isVec {
		q.unseen("%s: Prometheus answered a %s, not a vector", what, v.Type())
	}
	return vec, ok && isVec
}

// ranged sends a range query over the range.
func (q *querier) ranged(ctx context.Context, what, expr string) (model.Matrix, bool) {
	r := v1.Range{Start: q.s.start, End: q.s.end, Step: q.s.step}
	v, ok := q.query(ctx, what, expr, func(ctx context.Context) (model.Value, v1.Warnings, error) {
		return q.api.QueryRange(ctx, expr, r, v1.WithTimeout(q.s.timeout))
	})
	m, isMatrix := v.(model.Matrix)
	if ok && !isMatrix {
		q.unseen("%s: Prometheus answered a %s, not a matrix", what, v.Type())
	}
	return m, ok && isMatrix
}

// query records expr, runs send with a deadline and notes a failure or
// Prometheus' warnings in Unseen.
func (q *querier) query(ctx context.Context, what, expr string, send func(context.Context) (model.Value, v1.Warnings, error)) (model.Value, bool) {
	if err := ctx.Err(); err != nil {
		q.unseen("%s and what follows: not asked (%v)", what, err)
		return nil, false
	}
	q.h.Queries = append(q.h.Queries, expr)
	qctx, cancel := context.WithTimeout(ctx, q.s.timeout)
	defer cancel()
	v, warnings, err := send(qctx)
	for _, w := range warnings {
		q.unseen("%s: Prometheus warns: %s", what, w)
	}
	if err != nil {
		q.unseen("%s: %s", what, q.describe(err))
		return nil, false
	}
	if v == nil {
		q.unseen("%s: Prometheus answered no result", what)
		return nil, false
	}
	return v, true
}

// describe says in one line why a query failed.
func (q *querier) describe(err error) string {
	var apiErr *v1.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer from Prometheus at %s within %s", q.s.shown, q.s.timeout)
	case errors.As(err, &apiErr) && (apiErr.Type == v1.ErrClient && strings.HasSuffix(apiErr.Msg, ": 404") || apiErr.Type == v1.ErrBadResponse):
		return fmt.Sprintf("%s does not answer as Prometheus' query API (%s)", q.s.shown, firstLine(apiErr.Error()))
	}
	return firstLine(err.Error())
}

func (q *querier) unseen(format string, args ...any) {
	q.h.Unseen = append(q.h.Unseen, fmt.Sprintf(format, args...))
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

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func unix(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

// firstLine returns s up to its first line break, at most 200 bytes.
func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
