package kube

import (
	"sync/atomic"

	"github.com/etcdlab/etcdlab/result"
)

// etcdVerb is the operation label kube-apiserver's etcd_requests_total
// gives a storage request (k8s.io/apiserver pkg/storage/etcd3/store.go,
// each metrics.RecordEtcdRequest): Get and GuaranteedUpdate's reads of the
// current object are "get", GuaranteedUpdate's Txn "update" (bindings,
// status writes, patches and updates alike), Create's Txn "create",
// conditionalDelete's Txn "delete", GetList's Ranges "list", Stats'
// count-only Range "listWithCount".
type etcdVerb int

const (
	verbGet etcdVerb = iota
	verbCreate
	verbUpdate
	verbDelete
	verbList
	verbCount
	numVerbs
)

func (v etcdVerb) String() string {
	return [...]string{"get", "create", "update", "delete", "list", "listWithCount"}[v]
}

// etcdCounts counts the storage layer's etcd requests by verb and
// resource, as kube-apiserver's etcd_requests_total does: the view to set
// beside a real control plane's metric. kube-apiserver's own requests
// outside its storage (the health check, compaction, lease grants) are
// not in it, as they are not in the metric. Safe for concurrent use.
type etcdCounts struct {
	n [numVerbs][numResources]atomic.Int64
}

func (c *etcdCounts) add(v etcdVerb, r res) { c.n[v][r].Add(1) }

// result returns the non-zero counts, by resource then verb.
func (c *etcdCounts) result() []result.KubeEtcdRequests {
	var out []result.KubeEtcdRequests
	for _, r := range allResources() {
		for v := range numVerbs {
			if n := c.n[v][r].Load(); n > 0 {
				out = append(out, result.KubeEtcdRequests{Operation: v.String(), Resource: r.name(), Requests: n})
			}
		}
	}
	return out
}
