package deploy

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/etcdlab/etcdlab/internal/promtest"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/clustertest"
	"github.com/etcdlab/etcdlab/lab/member"
	"github.com/etcdlab/etcdlab/load"
	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// kubeAPIServerMetrics are the etcd metrics kube-apiserver exposes, with
// their types, as k8s.io/apiserver pkg/storage/etcd3/metrics/metrics.go
// defines them (kubernetes/kubernetes staging/src/k8s.io/apiserver). No
// kube-apiserver runs in the tests: these names are the documented list.
func kubeAPIServerMetrics() exposition {
	return exposition{
		"etcd_request_duration_seconds":                  dto.MetricType_HISTOGRAM,
		"etcd_requests_total":                            dto.MetricType_COUNTER,
		"etcd_request_errors_total":                      dto.MetricType_COUNTER,
		"etcd_bookmark_counts":                           dto.MetricType_GAUGE,
		"etcd_lease_object_counts":                       dto.MetricType_HISTOGRAM,
		"apiserver_storage_objects":                      dto.MetricType_GAUGE,
		"apiserver_resource_objects":                     dto.MetricType_GAUGE,
		"apiserver_storage_size_bytes":                   dto.MetricType_GAUGE,
		"apiserver_storage_events_received_total":        dto.MetricType_COUNTER,
		"apiserver_storage_list_total":                   dto.MetricType_COUNTER,
		"apiserver_storage_list_fetched_objects_total":   dto.MetricType_COUNTER,
		"apiserver_storage_list_evaluated_objects_total": dto.MetricType_COUNTER,
		"apiserver_storage_list_returned_objects_total":  dto.MetricType_COUNTER,
	}
}

// exposition is the metric families of one or more scrapes, by name.
type exposition map[string]dto.MetricType

// has reports whether the exposition serves name: a family of that name,
// or a histogram's _bucket, _sum or _count series.
func (e exposition) has(name string) bool {
	if _, ok := e[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if typ, ok := e[base]; ok && (typ == dto.MetricType_HISTOGRAM || (suffix != "_bucket" && typ == dto.MetricType_SUMMARY)) {
				return true
			}
		}
	}
	return false
}

// scrape reads url with Prometheus' text parser into e.
func (e exposition) scrape(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/plain")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	for name, mf := range mfs {
		e[name] = mf.GetType()
	}
	return nil
}

// liveSetup is what the live test runs: a real 3-member cluster with
// extensive metrics, and etcdlab's exposition of real load on it (requests
// that succeed and requests that fail), served over HTTP.
type liveSetup struct {
	members []string // the members' metrics URLs
	etcdlab string   // etcdlab's metrics URL
}

func startLive(t *testing.T) liveSetup {
	t.Helper()
	c := clustertest.Start(t, cluster.Options{Members: 3, Tuning: member.Tuning{Metrics: "extensive"}})
	l := load.NewLive(load.LiveOptions{Command: "deploy test"})
	t.Cleanup(l.Begin("names"))
	reg := prometheus.NewRegistry()
	reg.MustRegister(l, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(srv.Close)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	// Requests that succeed, and requests whose deadline has passed before
	// they are sent (DeadlineExceeded), so that every outcome panel has data.
	for _, spec := range []load.Spec{
		{Clients: 2, Duration: 10 * time.Minute, Rate: 50, RequestTimeout: 5 * time.Second, Live: l},
		{Clients: 1, Duration: 10 * time.Minute, Rate: 5, RequestTimeout: time.Nanosecond, Live: l},
	} {
		w := load.Put{Keys: load.Keys{Prefix: "/deploy/", KeySize: 8, KeySpaceSize: 1000}, Value: load.RandomValue(64)}
		s, err := load.Open(ctx, load.Options{Conn: c.Client(), Conns: 1}, w)
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			defer s.Close()
			_, _ = s.Run(ctx, spec)
		})
	}
	var members []string
	for _, u := range c.State().MetricsURLs {
		members = append(members, u+"/metrics")
	}
	return liveSetup{members: members, etcdlab: srv.URL + "/metrics"}
}

// expositions scrapes the members and etcdlab until both hold what the
// dashboard needs to see: the peer round trip (etcd's prober observes it
// every 30 s) and failed requests.
func (s liveSetup) expositions(t *testing.T) (etcd, etcdlab exposition) {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(time.Second) {
		etcd, etcdlab = exposition{}, exposition{}
		for _, u := range s.members {
			if err := etcd.scrape(u); err != nil {
				t.Fatal(err)
			}
		}
		if err := etcdlab.scrape(s.etcdlab); err != nil {
			t.Fatal(err)
		}
		if etcd.has("etcd_network_peer_round_trip_time_seconds") && etcd.has("grpc_server_handling_seconds") && etcdlab.has("etcdlab_request_duration_seconds") {
			return etcd, etcdlab
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 90 s the members still lack the peer round trip or gRPC histograms, or etcdlab its latency")
		}
	}
}

// TestMetricNames parses every expression of the dashboard (its targets and
// its variables' queries) and of the rules with Prometheus' parser, and
// finds every metric they read in a real etcd member's exposition,
// etcdlab's exposition of a real run, kube-apiserver's documented names or
// the rules' own recordings. Then a real Prometheus scrapes both with the
// rules loaded: every rule evaluates without error, every recording rule
// over etcd and etcdlab records series, and every dashboard query runs and
// returns series (kube-apiserver's: no error only).
func TestMetricNames(t *testing.T) {
	t.Parallel()
	s := startLive(t)
	etcd, etcdlab := s.expositions(t)
	rules := readRules(t)
	rec := recorded(rules)
	exprs := readDashboard(t).exprs()
	for _, r := range rules {
		exprs["rule "+r.Record+r.Alert+" "+r.Labels["verdict"]] = r.Expr
	}
	sources, apiserver := map[string]int{}, kubeAPIServerMetrics()
	apiserverOnly := map[string]bool{} // expressions that read kube-apiserver's metrics
	check := func(where, name string) {
		switch {
		case etcd.has(name):
			sources["etcd"]++
		case etcdlab.has(name):
			sources["etcdlab"]++
		case apiserver.has(name):
			sources["kube-apiserver"]++
			apiserverOnly[where] = true
		case rec[name] != "":
			sources["rules"]++
		default:
			t.Errorf("%s: %s is in no exposition (etcd, etcdlab, kube-apiserver's documented names) and no recording rule", where, name)
		}
	}
	for where, expr := range exprs {
		sub, err := substitute(expr)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		names, err := metricNames(sub)
		if err != nil || len(names) == 0 {
			t.Errorf("%s: %q: %v (names %v)", where, expr, err, names)
			continue
		}
		for _, n := range names {
			check(where, n)
		}
		exprs[where] = sub
	}
	for _, v := range readDashboard(t).Templating.List {
		if v.Type == "query" {
			if name, err := labelValuesMetric(v.query()); err != nil {
				t.Errorf("variable %s: %v", v.Name, err)
			} else {
				check("variable "+v.Name, name)
			}
		}
	}
	for _, src := range []string{"etcd", "etcdlab", "kube-apiserver", "rules"} {
		if sources[src] == 0 {
			t.Errorf("no expression reads %s's metrics: the check proved nothing for them", src)
		}
	}
	t.Logf("names found: %v", sources)
	if t.Failed() {
		return
	}
	s.prometheus(t, rules, exprs, apiserverOnly)
}

// prometheus runs the rules and the dashboard's queries on a real
// Prometheus scraping the members and etcdlab.
func (s liveSetup) prometheus(t *testing.T, rules []rule, exprs map[string]string, apiserverOnly map[string]bool) {
	t.Helper()
	hostPorts := func(urls ...string) []string {
		var out []string
		for _, u := range urls {
			out = append(out, promtest.HostPort(t, u))
		}
		return out
	}
	base := promtest.StartWith(t, promtest.Options{
		Jobs:      map[string][]string{"etcd": hostPorts(s.members...), "etcdlab": hostPorts(s.etcdlab)},
		RuleFiles: []string{rulesFile},
	})
	client, err := api.NewClient(api.Config{Address: base})
	if err != nil {
		t.Fatal(err)
	}
	p := v1.NewAPI(client)
	query := func(expr string) (model.Vector, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		v, _, err := p.Query(ctx, expr, time.Now())
		if err != nil {
			return nil, err
		}
		vec, ok := v.(model.Vector)
		if !ok {
			return nil, fmt.Errorf("%s: a %s, not a vector", expr, v.Type())
		}
		return vec, nil
	}

	// Rules: loaded, healthy, and recording (a rate needs a few scrapes).
	var missing []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		missing = missing[:0]
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rr, err := p.Rules(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, g := range rr.Groups {
			for _, r := range g.Rules {
				seen++
				var health v1.RuleHealth
				var name, lastErr string
				switch r := r.(type) {
				case v1.RecordingRule:
					health, name, lastErr = r.Health, r.Name, r.LastError
				case v1.AlertingRule:
					health, name, lastErr = r.Health, r.Name, r.LastError
				}
				if health != v1.RuleHealthGood {
					missing = append(missing, fmt.Sprintf("rule %s: health %q %s", name, health, lastErr))
				}
			}
		}
		if seen != len(rules) {
			missing = append(missing, fmt.Sprintf("Prometheus loaded %d rules of %d", seen, len(rules)))
		}
		for name, expr := range recorded(rules) {
			if strings.Contains(expr, "etcd_request_duration_seconds") {
				continue // kube-apiserver's: none runs here
			}
			if vec, err := query(name); err != nil || len(vec) == 0 {
				missing = append(missing, fmt.Sprintf("recording %s: %d series, %v", name, len(vec), err))
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60 s:\n%s", strings.Join(missing, "\n"))
		}
	}

	// The dashboard's queries, as Grafana would send them.
	wheres := slices.Sorted(func(yield func(string) bool) {
		for w := range exprs {
			if strings.HasPrefix(w, "panel ") && !yield(w) {
				return
			}
		}
	})
	for _, where := range wheres {
		vec, err := query(exprs[where])
		switch {
		case err != nil:
			t.Errorf("%s: %q: %v", where, exprs[where], err)
		case len(vec) == 0 && !apiserverOnly[where]:
			t.Errorf("%s: %q returned no series", where, exprs[where])
		}
	}
}
