package kube

import (
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// srcSLO is where Kubernetes publishes its scalability SLOs.
const srcSLO = "kubernetes/community sig-scalability/slos/slos.md"

// slos judges Kubernetes' published API SLOs on the run. The API call
// latency SLOs are judged on etcd's share of each call (the etcd requests
// it made, per verb and resource), a lower bound of the call's latency;
// pod startup on the watch-observed time from a pod's creation to its
// containers running. Each is over the whole run, not 5-minute windows.
func slos(ops []result.Op, startupP99 float64, startupPods int64) []result.KubeSLO {
	worst := func(name string, threshold float64, src string, match func(string) bool) (result.KubeSLO, bool) {
		s := result.KubeSLO{Name: name, Threshold: threshold, Source: src}
		found := false
		for _, o := range ops {
			if o.Requests == 0 || !match(o.Name) {
				continue
			}
			if !found || o.Latency.P99 > s.P99 {
				s.P99, s.Worst = o.Latency.P99, o.Name
			}
			found = true
		}
		s.Passed = s.P99 <= threshold
		return s, found
	}
	verb := func(name string) string { v, _, _ := strings.Cut(name, " "); return v }
	internal := func(name string) bool {
		return name == "get health" || name == "compact" || name == "count" || strings.HasPrefix(name, "grant")
	}
	var out []result.KubeSLO
	if s, ok := worst("mutating API calls p99 per resource and verb (etcd's share)", 1,
		srcSLO+" (API call latency: mutating calls ≤ 1 s)", func(n string) bool {
			v := verb(n)
			return !internal(n) && (v == "create" || v == "update" || v == "patch" || v == "delete")
		}); ok {
		out = append(out, s)
	}
	if s, ok := worst("read-only API calls p99, single object (etcd's share)", 1,
		srcSLO+" (API call latency: read-only single object ≤ 1 s)", func(n string) bool {
			return !internal(n) && verb(n) == "get"
		}); ok {
		out = append(out, s)
	}
	if s, ok := worst("read-only API calls p99, cluster-scope lists (etcd's share)", 30,
		srcSLO+" (API call latency: read-only cluster-scope list ≤ 30 s; the watch caches' lists are cluster-scope)", func(n string) bool {
			return verb(n) == "list"
		}); ok {
		out = append(out, s)
	}
	if startupPods > 0 {
		out = append(out, result.KubeSLO{Name: "pod startup p99 (stateless, images present)", Worst: "pods", P99: startupP99,
			Threshold: 5, Passed: startupP99 <= 5, Source: srcSLO + " (pod startup latency ≤ 5 s, creation to containers started, observed by watch)"})
	}
	return out
}
