package profile

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/observe/metrics"
)

// kube-apiserver's metrics (k8s.io/apiserver): its storage layer's etcd
// requests by operation and resource (before Kubernetes 1.2x by operation
// and type), and the objects it stores per resource (apiserver_storage_
// objects before 1.31).
const (
	APIServerEtcdRequests metrics.Name = "etcd_requests_total"
	APIServerObjects      metrics.Name = "apiserver_resource_objects"
	OldAPIServerObjects   metrics.Name = "apiserver_storage_objects"
)

// apiOps maps the storage layer's operations to etcd's: get and list are
// Ranges, create a Txn (put if the key's version is 0), update a Txn
// (put if its mod_revision is the one read), delete a Txn (delete if its
// mod_revision is the one read).
func apiOps() map[string]string {
	return map[string]string{"get": replay.OpRange, "list": replay.OpRange, "listWithCount": replay.OpRange,
		"create": replay.OpTxn, "update": replay.OpTxn, "delete": replay.OpTxn}
}

// apiSource scrapes kube-apiservers' metrics with their own credentials.
// Its scrape is safe for concurrent use; a nil *apiSource scrapes nothing.
type apiSource struct {
	client *http.Client
	urls   []string
}

// apiservers builds the kube-apiservers' client (CA and token read now,
// before anything is dialled); nil when none was given.
func (o *Options) apiservers() (*apiSource, error) {
	if len(o.APIServerMetrics) == 0 {
		return nil, nil
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.APIServerCACert != "" {
		pem, err := os.ReadFile(o.APIServerCACert)
		if err != nil {
			return nil, invalid.Errorf("{APIServerCACert}: %s", firstLine(err.Error()))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, invalid.Errorf("{APIServerCACert} %s holds no PEM certificate", o.APIServerCACert)
		}
		tlsCfg.RootCAs = pool
	}
	var rt http.RoundTripper = &http.Transport{TLSClientConfig: tlsCfg, DisableKeepAlives: true}
	if o.APIServerTokenFile != "" {
		b, err := os.ReadFile(o.APIServerTokenFile)
		if err != nil {
			return nil, invalid.Errorf("{APIServerTokenFile}: %s", firstLine(err.Error()))
		}
		rt = bearer{token: strings.TrimSpace(string(b)), next: rt}
	}
	return &apiSource{client: &http.Client{Transport: rt}, urls: o.APIServerMetrics}, nil
}

// apiScrape is one kube-apiserver's scrape, or why there is none.
type apiScrape struct {
	snap *metrics.Snapshot
	err  error
}

// scrape reads every kube-apiserver's metrics, each within
// requestTimeout.
func (a *apiSource) scrape(ctx context.Context) []apiScrape {
	if a == nil {
		return nil
	}
	out := make([]apiScrape, len(a.urls))
	for i, u := range a.urls {
		out[i].snap, out[i].err = metrics.ScrapeExporter(ctx, a.client, u, requestTimeout)
	}
	return out
}

// apiView is what the kube-apiservers' metrics say over the window.
type apiView struct {
	// rates is etcd requests per second by etcd operation and resource;
	// verbs by resource and storage verb ("get", "list", "listWithCount").
	rates map[string]map[string]float64
	verbs map[string]map[string]float64
	// objects is the objects per resource at the end.
	objects map[string]float64
	// apiservers is how many kube-apiservers were scraped at both ends:
	// one per endpoint, or its etcdlab_kube_apiservers gauge (an
	// emulation that sums several).
	apiservers int
	notes      []string
}

// MetricKubeAPIServers is the gauge of an endpoint that sums several
// (emulated) kube-apiservers' metrics (load/kube's).
const MetricKubeAPIServers metrics.Name = "etcdlab_kube_apiservers"

// apiRates reads the kube-apiservers' etcd requests per second by etcd
// operation and resource, summed over the apiservers scraped at both
// ends, and the objects per resource at the end.
func apiRates(before, after []apiScrape) apiView {
	v := apiView{rates: map[string]map[string]float64{}, verbs: map[string]map[string]float64{}, objects: map[string]float64{}}
	ops := apiOps()
	for i := range after {
		b, a := before[i], after[i]
		if b.err != nil || a.err != nil {
			err := b.err
			if err == nil {
				err = a.err
			}
			v.notes = append(v.notes, "kube-apiserver metrics: "+redactURL(err.Error()))
			continue
		}
		secs := a.snap.At.Sub(b.snap.At).Seconds()
		if secs <= 0 {
			continue
		}
		if n, ok := a.snap.Gauge(MetricKubeAPIServers); ok && n >= 1 {
			v.apiservers += int(n)
		} else {
			v.apiservers++
		}
		label := "resource"
		if len(a.snap.SumByPair(APIServerEtcdRequests, "operation", "resource")) == 1 && a.snap.SumByPair(APIServerEtcdRequests, "operation", "resource")[metrics.LabelPair{}] > 0 {
			label = "type" // before the resource label
		}
		bv := b.snap.SumByPair(APIServerEtcdRequests, "operation", label)
		for k, x := range a.snap.SumByPair(APIServerEtcdRequests, "operation", label) {
			op, ok := ops[k[0]]
			d := x - bv[k]
			if !ok || d <= 0 || k[1] == "" {
				continue
			}
			if v.rates[op] == nil {
				v.rates[op] = map[string]float64{}
			}
			v.rates[op][k[1]] += d / secs
			if v.verbs[k[1]] == nil {
				v.verbs[k[1]] = map[string]float64{}
			}
			v.verbs[k[1]][k[0]] += d / secs
		}
		objs := a.snap.SumByPair(APIServerObjects, "resource", "group")
		if len(objs) == 0 {
			objs = a.snap.SumByPair(OldAPIServerObjects, "resource", "group")
		}
		for k, x := range objs {
			if k[0] != "" {
				v.objects[k[0]] = max(v.objects[k[0]], x) // each apiserver counts the same objects
			}
		}
	}
	return v
}

// registryPrefix is where kube-apiserver keeps a resource's objects with
// its default --etcd-prefix: /registry/<resource>/, with the historical
// exceptions (services' specs and endpoints, nodes as minions); a custom
// resource (a group with a dot, not *.k8s.io) is under
// /registry/<group>/<resource>/. A resource spelt "group/resource" is
// split.
func registryPrefix(resource string) string {
	group := ""
	if g, r, ok := strings.Cut(resource, "/"); ok {
		group, resource = g, r
	}
	switch resource {
	case "services":
		return "/registry/services/specs/"
	case "endpoints":
		return "/registry/services/endpoints/"
	case "nodes":
		return "/registry/minions/"
	}
	if strings.Contains(group, ".") && !strings.HasSuffix(group, ".k8s.io") {
		return "/registry/" + group + "/" + resource + "/"
	}
	return "/registry/" + resource + "/"
}

// attribute splits the profile's range and txn rows across Kubernetes
// resources by the kube-apiservers' shares: each resource's row gets the
// etcd rate times its share of the apiservers' requests of that
// operation, up to what the apiservers sent; what etcd served beyond the
// apiservers' requests (other clients, or the scrapes' timing) stays in a
// row without a prefix. A resource's prefix is the keyspace's prefix that
// ends in its /registry/ path (kube-apiserver's --etcd-prefix may add to
// it). Write sizes and the txn shape are the operation's, the same for
// every resource; a resource's range row has its own keys and bytes per
// range (rangeSizes) when the keyspace has its prefix's sizes. The
// watchers of the apiservers' watch caches become Watches.Prefixes
// (apiWatches). Call it after the census, whose prefixes it reads.
func attribute(p *replay.Profile, before, after []apiScrape) {
	v := apiRates(before, after)
	p.Unattributed = append(p.Unattributed, v.notes...)
	if len(v.rates) == 0 && len(v.objects) == 0 {
		p.Unattributed = append(p.Unattributed, "reads per resource: the kube-apiservers' metrics had no etcd_requests_total in the window")
		return
	}
	p.Source.Sources = append(p.Source.Sources, "apiserver-metrics")
	var out []replay.Operation
	for _, o := range p.Operations {
		byRes := v.rates[o.Op]
		if len(byRes) == 0 || o.Prefix != "" {
			out = append(out, o)
			continue
		}
		var total float64
		for _, x := range byRes {
			total += x
		}
		split := min(total, o.Rate)
		names := make([]string, 0, len(byRes))
		for r := range byRes {
			names = append(names, r)
		}
		sort.Strings(names)
		for _, r := range names {
			row := o
			row.Rate = o.Rate * (byRes[r] / total) * (split / o.Rate)
			row.Resource, row.Prefix = r, resourcePrefix(p.Keyspace, r)
			row.From = fmt.Sprintf("%s, times %s's share of the kube-apiservers' %s (%s)", o.From, r, o.Op, APIServerEtcdRequests)
			if o.Op == replay.OpRange {
				rangeSizes(&row, p.Keyspace, v.verbs[r], v.objects[r])
			}
			if o.Op == replay.OpTxn {
				txnShape(&row, v.verbs[r])
			}
			out = append(out, row)
		}
		if o.Op == replay.OpTxn && o.ValueBytes > 0 {
			writeSizes(out[len(out)-len(names):], p.Keyspace, o.ValueBytes)
			for j := len(out) - len(names); j < len(out); j++ {
				createSize(&out[j], p.Keyspace, v.verbs[out[j].Resource])
			}
		}
		if rest := o.Rate - split; rest > 0.01*o.Rate {
			row := o
			row.Rate = rest
			row.From = o.From + "; what the kube-apiservers did not send"
			if o.Op == replay.OpRange && len(v.rates[replay.OpRange]) > 0 {
				// Ranges beside the storage layer's: kube-apiserver's etcd
				// health check is a Get of the key "health", which does
				// not exist (k8s.io/apiserver storagebackend/factory,
				// etcd3.go), so an empty response.
				row.RangeKeys, row.RangeBytes = 0, rangeResponse
				row.From += fmt.Sprintf("; taken as kube-apiserver's health checks: Gets of a key that does not exist, %d bytes each", rangeResponse)
			}
			out = append(out, row)
		}
	}
	p.Operations = out
	if len(v.objects) > 0 {
		if p.Keyspace == nil {
			p.Keyspace = &replay.Keyspace{}
		}
		for r, n := range v.objects {
			if prefix := resourcePrefix(p.Keyspace, r); prefixIndex(p.Keyspace.Prefixes, prefix) < 0 {
				p.Keyspace.Prefixes = append(p.Keyspace.Prefixes, replay.PrefixShape{Prefix: prefix, Resource: r, Keys: int64(n)})
			}
		}
		sort.Slice(p.Keyspace.Prefixes, func(i, j int) bool { return p.Keyspace.Prefixes[i].Prefix < p.Keyspace.Prefixes[j].Prefix })
		p.Keyspace.From = strings.TrimPrefix(p.Keyspace.From+"; prefixes: the kube-apiservers' "+string(APIServerObjects), "; ")
	}
	apiWatches(p, v)
}

// txnShape is a resource's transactions as kube-apiserver sends them: a
// create or an update is a txn of one put guarded on the key's revision,
// a delete a txn of one delete (k8s.io/apiserver's etcd3 store), so the
// row's puts and deletes per txn are the shares of its verbs.
func txnShape(o *replay.Operation, verbs map[string]float64) {
	puts, dels := verbs["create"]+verbs["update"], verbs["delete"]
	if puts+dels <= 0 {
		return
	}
	o.Txn = &replay.TxnShape{Compares: 1, Puts: puts / (puts + dels), Deletes: dels / (puts + dels)}
	o.From += "; txn shape: the kube-apiservers' creates and updates (one guarded put) and deletes (one guarded delete)"
}

// createSize sets a resource's txn row's CreateValueBytes when its writes
// are smaller on average (ValueBytes, M) than its stored objects (the
// census's S): Kubernetes objects grow after their create (a pod gains its
// node, then its status), so if updates rewrite the object at its stored
// size, creates (c per second beside u updates) are
// (M·(c+u) − u·S)/c. Kept only when that lies between 0 and M: otherwise
// the writes are not told apart and every one is M.
func createSize(o *replay.Operation, k *replay.Keyspace, verbs map[string]float64) {
	c, u := verbs["create"], verbs["update"]
	if k == nil || c <= 0 || u <= 0 || o.ValueBytes <= 0 {
		return
	}
	i := prefixIndex(k.Prefixes, o.Prefix)
	if i < 0 {
		return
	}
	s, m := k.Prefixes[i].ValueBytes, o.ValueBytes
	if sc := (m*(c+u) - u*s) / c; sc > 0 && sc < m {
		o.CreateValueBytes = sc
		o.From += fmt.Sprintf("; createValueBytes: updates at the stored size (%.0f), creates what keeps the mean (%.1f creates and %.1f updates a second)", s, c, u)
	}
}

// putsPerTxn is a row's puts per request (1 for a put, its shape's for a
// txn).
func putsPerTxn(o replay.Operation) float64 {
	if o.Op == replay.OpTxn && o.Txn != nil {
		return o.Txn.Puts
	}
	return 1
}

// writeSizes spreads the operation's mean write size (mean, the leader's
// measured one) over its resources' rows in proportion to their objects'
// mean value sizes in the keyspace (an update rewrites the whole object),
// weighted by each row's puts, so that the rows' mean per put stays the
// measured one; rows whose prefix has no sizes keep mean.
func writeSizes(rows []replay.Operation, k *replay.Keyspace, mean float64) {
	if k == nil {
		return
	}
	var rate, weighted float64
	for _, o := range rows {
		if i := prefixIndex(k.Prefixes, o.Prefix); i >= 0 && k.Prefixes[i].ValueBytes > 0 {
			rate += o.Rate * putsPerTxn(o)
			weighted += o.Rate * putsPerTxn(o) * k.Prefixes[i].ValueBytes
		}
	}
	if rate == 0 || weighted == 0 {
		return
	}
	f := mean * rate / weighted
	for j := range rows {
		if i := prefixIndex(k.Prefixes, rows[j].Prefix); i >= 0 && k.Prefixes[i].ValueBytes > 0 {
			rows[j].ValueBytes = k.Prefixes[i].ValueBytes * f
			rows[j].From += fmt.Sprintf("; valueBytes: the operation's mean spread by the census's value sizes (%s's %.0f, times %.2f)", rows[j].Resource, k.Prefixes[i].ValueBytes, f)
		}
	}
}

// resourcePrefix is where resource r's keys are: the keyspace's prefix
// that ends in r's /registry/ path, else that path.
func resourcePrefix(k *replay.Keyspace, r string) string {
	want := registryPrefix(r)
	if k != nil {
		for _, s := range k.Prefixes {
			if strings.HasSuffix(s.Prefix, want) {
				return s.Prefix
			}
		}
	}
	return want
}

// Wire sizes of a Range response beyond its keys and values, measured by
// TestWireSizes: a KeyValue's own fields (revisions, version, the
// wrappers) and a response's header and count.
const (
	kvOverhead    = 16
	rangeResponse = 30
)

// rangeSizes sets a resource's range row's keys and bytes per range from
// its storage verbs' rates (a "get" returns one key, a "list" every key
// of the resource: kube-apiserver lists a resource's prefix, and the
// emulation's page holds 10,000; a "listWithCount" none, only the count)
// and the keyspace's mean key and value sizes for its prefix; a row
// whose prefix has no sizes keeps the operation's.
func rangeSizes(o *replay.Operation, k *replay.Keyspace, verbs map[string]float64, objects float64) {
	i := -1
	if k != nil {
		i = prefixIndex(k.Prefixes, o.Prefix)
	}
	if i < 0 || k.Prefixes[i].KeyBytes == 0 {
		return
	}
	s := k.Prefixes[i]
	n := float64(s.Keys)
	if n == 0 {
		n = objects
	}
	get, list, count := verbs["get"], verbs["list"], verbs["listWithCount"]
	all := get + list + count
	if all <= 0 {
		return
	}
	keys := (get*min(1, n) + list*n) / all
	o.RangeKeys = keys
	o.RangeBytes = keys*(s.KeyBytes+s.ValueBytes+kvOverhead) + rangeResponse
	o.From += fmt.Sprintf("; rangeKeys and rangeBytes: the kube-apiservers' get (one key), list (all %.0f keys) and listWithCount (none) of %s, at the census's mean key and value sizes plus %d bytes per key and %d per response",
		n, o.Resource, kvOverhead, rangeResponse)
	// The row's estimate from sent bytes no longer applies.
	o.From = strings.Replace(o.From, "; rangeBytes: ", "; (superseded) ", 1)
}

// apiWatches places the kube-apiservers' watchers: each apiserver's
// watch cache of each resource it serves (every resource it stores but
// events, which have no watch cache by default) watches its prefix once,
// with prev_kv (k8s.io/apiserver pkg/storage/etcd3/watcher.go); the other
// watchers of Watches are other clients', without prev_kv.
func apiWatches(p *replay.Profile, v apiView) {
	w := p.Watches
	if w == nil || v.apiservers == 0 {
		return
	}
	seen := map[string]bool{}
	for r := range v.objects {
		seen[r] = true
	}
	for _, byRes := range v.rates {
		for r := range byRes {
			seen[r] = true
		}
	}
	names := make([]string, 0, len(seen))
	for r := range seen {
		if r != "events" {
			names = append(names, r)
		}
	}
	sort.Strings(names)
	left := w.Watchers
	for _, pw := range w.Prefixes {
		left -= pw.Watchers
	}
	for _, r := range names {
		n := min(v.apiservers, left)
		if n <= 0 {
			p.Unattributed = append(p.Unattributed, fmt.Sprintf("watches: %d watchers, fewer than the kube-apiservers' watch caches: %s and after not placed", w.Watchers, r))
			break
		}
		left -= n
		w.Prefixes = append(w.Prefixes, replay.WatchPrefix{Prefix: resourcePrefix(p.Keyspace, r), Watchers: n, PrevKV: true})
	}
	w.From += fmt.Sprintf("; prefixes: a prev_kv watch per kube-apiserver (%d) and resource with a watch cache (every one but events)", v.apiservers)
}

// prefixIndex is the index of prefix in ps, or -1.
func prefixIndex(ps []replay.PrefixShape, prefix string) int {
	for i, s := range ps {
		if s.Prefix == prefix {
			return i
		}
	}
	return -1
}
