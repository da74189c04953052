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

// apiRates are the kube-apiservers' etcd requests per second by etcd
// operation and resource, summed over the apiservers scraped at both
// ends, and the objects per resource at the end.
func apiRates(before, after []apiScrape) (map[string]map[string]float64, map[string]float64, []string) {
	rates := map[string]map[string]float64{}
	objects := map[string]float64{}
	var notes []string
	ops := apiOps()
	for i := range after {
		b, a := before[i], after[i]
		if b.err != nil || a.err != nil {
			err := b.err
			if err == nil {
				err = a.err
			}
			notes = append(notes, "kube-apiserver metrics: "+redactURL(err.Error()))
			continue
		}
		secs := a.snap.At.Sub(b.snap.At).Seconds()
		if secs <= 0 {
			continue
		}
		label := "resource"
		if len(a.snap.SumByPair(APIServerEtcdRequests, "operation", "resource")) == 1 && a.snap.SumByPair(APIServerEtcdRequests, "operation", "resource")[metrics.LabelPair{}] > 0 {
			label = "type" // before the resource label
		}
		bv := b.snap.SumByPair(APIServerEtcdRequests, "operation", label)
		for k, v := range a.snap.SumByPair(APIServerEtcdRequests, "operation", label) {
			op, ok := ops[k[0]]
			d := v - bv[k]
			if !ok || d <= 0 || k[1] == "" {
				continue
			}
			if rates[op] == nil {
				rates[op] = map[string]float64{}
			}
			rates[op][k[1]] += d / secs
		}
		objs := a.snap.SumByPair(APIServerObjects, "resource", "group")
		if len(objs) == 0 {
			objs = a.snap.SumByPair(OldAPIServerObjects, "resource", "group")
		}
		for k, v := range objs {
			if k[0] != "" {
				objects[k[0]] = max(objects[k[0]], v) // each apiserver counts the same objects
			}
		}
	}
	return rates, objects, notes
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
// row without a prefix. Sizes and the txn shape are the operation's, the
// same for every resource.
func attribute(p *replay.Profile, before, after []apiScrape) {
	rates, objects, notes := apiRates(before, after)
	p.Unattributed = append(p.Unattributed, notes...)
	if len(rates) == 0 && len(objects) == 0 {
		p.Unattributed = append(p.Unattributed, "reads per resource: the kube-apiservers' metrics had no etcd_requests_total in the window")
		return
	}
	p.Source.Sources = append(p.Source.Sources, "apiserver-metrics")
	var out []replay.Operation
	for _, o := range p.Operations {
		byRes := rates[o.Op]
		if len(byRes) == 0 || o.Prefix != "" {
			out = append(out, o)
			continue
		}
		var total float64
		for _, v := range byRes {
			total += v
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
			row.Resource, row.Prefix = r, registryPrefix(r)
			row.From = fmt.Sprintf("%s, times %s's share of the kube-apiservers' %s (%s)", o.From, r, o.Op, APIServerEtcdRequests)
			out = append(out, row)
		}
		if rest := o.Rate - split; rest > 0.01*o.Rate {
			row := o
			row.Rate = rest
			row.From = o.From + "; what the kube-apiservers did not send"
			out = append(out, row)
		}
	}
	p.Operations = out
	if len(objects) > 0 {
		if p.Keyspace == nil {
			p.Keyspace = &replay.Keyspace{}
		}
		for r, n := range objects {
			if prefixIndex(p.Keyspace.Prefixes, registryPrefix(r)) < 0 {
				p.Keyspace.Prefixes = append(p.Keyspace.Prefixes, replay.PrefixShape{Prefix: registryPrefix(r), Resource: r, Keys: int64(n)})
			}
		}
		sort.Slice(p.Keyspace.Prefixes, func(i, j int) bool { return p.Keyspace.Prefixes[i].Prefix < p.Keyspace.Prefixes[j].Prefix })
		p.Keyspace.From = strings.TrimPrefix(p.Keyspace.From+"; prefixes: the kube-apiservers' "+string(APIServerObjects), "; ")
	}
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
