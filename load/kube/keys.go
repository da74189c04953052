package kube

import (
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
)

// res is one API resource the workload touches.
type res int

// The resources, in the order the cleanup and tables list them.
const (
	resNamespaces res = iota
	resServiceAccounts
	resNodes
	resLeases
	resPods
	resServices
	resEndpoints
	resSlices
	resDeployments
	resReplicaSets
	resEvents
	numResources
)

// resource is how kube-apiserver stores one resource: its key segment
// under /registry, its storage version and whether it is namespaced.
type resource struct {
	name       string // API resource name: "pods"
	segment    string // key segment under /registry: "minions" for nodes
	apiVersion string // storage version
	kind       string
	namespaced bool
	// watched: kube-apiserver keeps a watch cache for it (one list and
	// one watch per apiserver); events have none by default
	// (DefaultWatchCacheSizes in kubernetes/kubernetes
	// pkg/kubeapiserver/options sets events to 0).
	watched bool
}

// info returns r's storage facts. Special key segments are
// kube-apiserver's (kubernetes/kubernetes
// pkg/kubeapiserver/default_storage_factory_builder.go: nodes under
// "minions", services under "services/specs", endpoints under
// "services/endpoints").
func (r res) info() resource {
	switch r {
	case resNamespaces:
		return resource{"namespaces", "namespaces", "v1", "Namespace", false, true}
	case resServiceAccounts:
		return resource{"serviceaccounts", "serviceaccounts", "v1", "ServiceAccount", true, true}
	case resNodes:
		return resource{"nodes", "minions", "v1", "Node", false, true}
	case resLeases:
		return resource{"leases", "leases", "coordination.k8s.io/v1", "Lease", true, true}
	case resPods:
		return resource{"pods", "pods", "v1", "Pod", true, true}
	case resServices:
		return resource{"services", "services/specs", "v1", "Service", true, true}
	case resEndpoints:
		return resource{"endpoints", "services/endpoints", "v1", "Endpoints", true, true}
	case resSlices:
		return resource{"endpointslices", "endpointslices", "discovery.k8s.io/v1", "EndpointSlice", true, true}
	case resDeployments:
		return resource{"deployments", "deployments", "apps/v1", "Deployment", true, true}
	case resReplicaSets:
		return resource{"replicasets", "replicasets", "apps/v1", "ReplicaSet", true, true}
	default:
		return resource{"events", "events", "v1", "Event", true, false}
	}
}

func (r res) name() string  { return r.info().name }
func (r res) watched() bool { return r.info().watched }

// newObj returns an empty object of r's type.
func (r res) newObj() object {
	switch r {
	case resNamespaces:
		return &corev1.Namespace{}
	case resServiceAccounts:
		return &corev1.ServiceAccount{}
	case resNodes:
		return &corev1.Node{}
	case resLeases:
		return &coordinationv1.Lease{}
	case resPods:
		return &corev1.Pod{}
	case resServices:
		return &corev1.Service{}
	case resEndpoints:
		return &corev1.Endpoints{} //nolint:staticcheck // the endpoints controller still writes Endpoints
	case resSlices:
		return &discoveryv1.EndpointSlice{}
	case resDeployments:
		return &appsv1.Deployment{}
	case resReplicaSets:
		return &appsv1.ReplicaSet{}
	default:
		return &corev1.Event{}
	}
}

// allResources lists every resource.
func allResources() []res {
	out := make([]res, 0, numResources)
	for r := range numResources {
		out = append(out, r)
	}
	return out
}

// keys lays out a run's keys: root is Spec.Prefix + "/registry/", as
// kube-apiserver's --etcd-prefix "/registry".
type keys struct{ root string }

// resourcePrefix is the prefix of every object of r, with its trailing
// slash (what the watch cache lists and watches).
func (k keys) resourcePrefix(r res) string { return k.root + r.info().segment + "/" }

// key is the object's key: /registry/<segment>/<namespace>/<name>, or
// /registry/<segment>/<name> when r is cluster-scoped.
func (k keys) key(r res, ns, name string) string {
	i := r.info()
	if !i.namespaced {
		return k.root + i.segment + "/" + name
	}
	return k.root + i.segment + "/" + ns + "/" + name
}

// health is the key kube-apiserver's etcd health check reads
// (k8s.io/apiserver pkg/storage/storagebackend/factory/etcd3.go: a Get of
// path.Join(prefix, "health")).
func (k keys) health() string { return k.root + "health" }
