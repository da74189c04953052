// Package sizing is the load a Kubernetes cluster's size implies on etcd:
// a documented model that turns nodes, pods, namespaces, services,
// deployments, apiservers, churn and object sizes into the storage
// layer's etcd requests per verb and resource (what kube-apiserver's
// etcd_requests_total counts), the requests outside that metric, the
// objects stored, the watches, the event leases and the database's
// projected size, each rate with its source (Kubernetes v1.34 defaults,
// as bench kube's load/kube follows them). Where bench kube simplifies,
// the model follows bench kube, so that the two can be checked against
// each other (TestModelMatchesBenchKube), and the rate's source says what
// real Kubernetes does differently. Load.Profile turns the load into a
// profile `bench replay` plays.
//
// Cluster and Load are plain values.
package sizing

import (
	"math"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/kube"
)

// Cluster is the Kubernetes cluster to plan for. Plain value.
type Cluster struct {
	// Nodes and Pods are the cluster's size. Pods are all the pods,
	// DaemonSets' included; the model treats every pod as a
	// Deployment's (bench kube runs no DaemonSets).
	Nodes, Pods int
	// Namespaces, Services and Deployments are the objects the pods
	// live among. Each Service selects the pods of one Deployment (the
	// first min(Services, Deployments) Deployments have one).
	Namespaces, Services, Deployments int
	// APIServers is the number of kube-apiservers: each keeps its own
	// watch cache of every watched resource (a watch of its prefix
	// against etcd), health-checks etcd and counts objects.
	APIServers int
	// WatchersPerAPIServer are the client watches each apiserver serves
	// (kubelets', kube-proxies', controllers' informers). They are served
	// from the apiserver's watch cache, not from etcd: etcd sees one watch
	// per watched resource per apiserver, whatever this is. It is kept so
	// that the answer can say so.
	WatchersPerAPIServer int
	// Churn is pods created per second, and as many deleted (steady
	// state). As bench kube's steady mode churns, it is whole Deployments
	// (and their Services) deleted and created again: Churn / (Pods /
	// Deployments) Deployments a second.
	Churn float64
	// Bytes is each kind's stored object size.
	Bytes ObjectBytes
	// HollowKubelets makes the kubelets kubemark's hollow kubelets, as
	// bench kube's Spec.HollowKubelets: they send no events, and their
	// pods are Ready from their first status.
	HollowKubelets bool
}

// ObjectBytes are stored object sizes in bytes (the protobuf value etcd
// holds), per kind. A zero field takes Defaults' value.
type ObjectBytes struct {
	// Pod is a running pod; PodCreate a pod as its ReplicaSet's
	// controller creates it (no node, no status yet).
	Pod, PodCreate     int
	Node, Lease, Event int
	// Endpoints and EndpointSlice are one service's objects with all of
	// its pods' addresses.
	Endpoints, EndpointSlice                                   int
	ReplicaSet, Deployment, Service, Namespace, ServiceAccount int
}

// The default sizes and where they come from. bench kube's sizes are
// what its objects (load/kube/objects.go, built as kube-apiserver stores
// them after defaulting and admission, managedFields included) encode to,
// as a watch of its keys measured them (measureSteady's sizes, 15
// Deployments of 20 replicas): the mean of every write of the kind.
const (
	defaultPodBytes   = 12_000
	srcPodBytes       = "real pods are 10-20 KB stored, not the 4 KB some envelopes assume (issue 35; ../shared/reference/users.md §1): 12 KB"
	srcPodCreateBytes = "a pod as created is bench kube's share of its later writes' size (1,606 of 2,461 bytes on average: no node, no status, no status managedFields yet): 65%"
	defaultNodeBytes  = 10_000
	srcNodeBytes      = "a node's status lists at most 50 images (the kubelet's nodeStatusMaxImages, pkg/kubelet/apis/config/v1beta1/defaults.go) of about 150 bytes each, with its conditions, addresses and managedFields: 10 KB (estimate)"
	srcBenchBytes     = "bench kube's encoded object (load/kube/objects.go), measured"
)

// benchBytes are bench kube's measured sizes (srcBenchBytes).
func benchBytes() ObjectBytes {
	return ObjectBytes{Lease: 370, Event: 340, ReplicaSet: 1_370, Deployment: 1_950, Service: 650, Namespace: 250, ServiceAccount: 110}
}

// Per-address sizes of a service's endpoints objects, bench kube's
// (srcBenchBytes): a base and the bytes each pod adds.
const (
	endpointsBase, endpointsPerPodBytes = 300, 130
	sliceBase, slicePerPod              = 400, 170
)

// Defaults returns a cluster of nodes and pods with every other field
// from a stated source (DefaultSources).
func Defaults(nodes, pods int) Cluster {
	return Cluster{Nodes: nodes, Pods: pods}.WithDefaults()
}

// DefaultSources says where each of Defaults' fields comes from.
func DefaultSources() map[string]string {
	return map[string]string{
		"Namespaces": "Kubernetes' own 4 (default, kube-system, kube-public, kube-node-lease) plus one per 100 nodes, " +
			"clusterloader2's NODES_PER_NAMESPACE (kubernetes/perf-tests clusterloader2/testing/load/config.yaml)",
		"Deployments": "clusterloader2's load test: Deployments of 250, 30 and 5 pods hold a quarter, a quarter and half of the pods " +
			"(testing/load/config.yaml): pods × (1/4/250 + 1/4/30 + 1/2/5) Deployments, 9.1 pods each",
		"Services":   "one per Deployment, as bench kube's manifest (the field report's 10 deployments with a service each)",
		"APIServers": "3: kubeadm's highly available control plane, one per control-plane node (bench kube's default)",
		"WatchersPerAPIServer": "estimate: 5 per node (the kubelet's informers on its pods, its Node and Services; kube-proxy's on " +
			"Services and EndpointSlices) and 50 for the control plane's controllers, spread over the apiservers",
		"Churn": "Kubernetes' steady-state bound, 20 pods/s (sig-scalability slos.md), at its envelope's 150,000 pods (thresholds.md), " +
			"in proportion to the cluster's pods",
		"Bytes.Pod": srcPodBytes, "Bytes.PodCreate": srcPodCreateBytes, "Bytes.Node": srcNodeBytes,
		"Bytes.Endpoints":     "bench kube's (srcBenchBytes): 300 bytes and about 130 per pod behind the service (1,370 on average at 20 replicas)",
		"Bytes.EndpointSlice": "bench kube's: 400 bytes and about 170 per pod behind the service (1,550 on average at 20 replicas)",
		"Bytes (other kinds)": srcBenchBytes + ": Lease 370, Event 340, ReplicaSet 1,370, Deployment 1,950, Service 650, Namespace 250, ServiceAccount 110",
		"HollowKubelets":      "false: real kubelets",
	}
}

// WithDefaults fills c's zero fields (Nodes and Pods are given) from
// DefaultSources' rules; HollowKubelets keeps its value.
func (c Cluster) WithDefaults() Cluster {
	if c.Namespaces == 0 {
		c.Namespaces = 4 + ceilDiv(c.Nodes, 100)
	}
	if c.Deployments == 0 {
		c.Deployments = max(1, int(math.Round(float64(c.Pods)*(1.0/4/250+1.0/4/30+1.0/2/5))))
	}
	if c.Services == 0 {
		c.Services = c.Deployments
	}
	if c.APIServers == 0 {
		c.APIServers = kube.DefaultSpec().APIServers
	}
	if c.WatchersPerAPIServer == 0 {
		c.WatchersPerAPIServer = ceilDiv(5*c.Nodes+50, max(1, c.APIServers))
	}
	if c.Churn == 0 {
		c.Churn = 20 * float64(c.Pods) / 150_000
	}
	b := &c.Bytes
	setZero(&b.Pod, defaultPodBytes)
	setZero(&b.PodCreate, b.Pod*1606/2461)
	setZero(&b.Node, defaultNodeBytes)
	perSvc := 0
	if c.Services > 0 && c.Deployments > 0 {
		perSvc = c.Pods / c.Deployments
	}
	setZero(&b.Endpoints, endpointsBase+endpointsPerPodBytes*perSvc)
	setZero(&b.EndpointSlice, sliceBase+slicePerPod*min(perSvc, kube.DefaultLimits().EndpointsPerSlice))
	bb := benchBytes()
	setZero(&b.Lease, bb.Lease)
	setZero(&b.Event, bb.Event)
	setZero(&b.ReplicaSet, bb.ReplicaSet)
	setZero(&b.Deployment, bb.Deployment)
	setZero(&b.Service, bb.Service)
	setZero(&b.Namespace, bb.Namespace)
	setZero(&b.ServiceAccount, bb.ServiceAccount)
	return c
}

func setZero(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// minDaemonPods is the fewest pods a node runs: kube-proxy's and the
// network plugin's agent, both DaemonSets on every node (kubeadm's
// kube-proxy addon, cmd/kubeadm/app/phases/addons/proxy; a CNI agent such
// as calico-node or cilium).
const minDaemonPods = 2

// minPodLifetime is the shortest mean pod lifetime (Pods / Churn) the
// model accepts: a pod churned faster never reaches a steady state
// (scheduled, started, Ready, serving), and Kubernetes' steady-state SLOs
// assume churn far below it.
const minPodLifetime = 60.0

// Validate rejects a cluster (after WithDefaults) the model cannot
// answer for, with one-line invalid.Errorf errors naming the field.
func (c Cluster) Validate() error {
	maxPods := kube.DefaultSpec().PodsPerNode
	switch {
	case c.Nodes < 1:
		return invalid.Errorf("{Nodes} must be at least 1, not %d", c.Nodes)
	case c.Pods < 1:
		return invalid.Errorf("{Pods} must be at least 1, not %d", c.Pods)
	case c.Namespaces < 1 || c.Services < 1 || c.Deployments < 1 || c.APIServers < 1:
		return invalid.Errorf("{Namespaces}, {Services}, {Deployments} and {APIServers} must be at least 1 (%d, %d, %d, %d)",
			c.Namespaces, c.Services, c.Deployments, c.APIServers)
	case c.WatchersPerAPIServer < 0:
		return invalid.Errorf("{WatchersPerAPIServer} must not be negative, not %d", c.WatchersPerAPIServer)
	case c.Pods < minDaemonPods*c.Nodes:
		return invalid.Errorf("{Pods} (%d) is fewer than %d nodes need: each runs at least %d DaemonSet pods (kube-proxy and the network plugin's agent)",
			c.Pods, c.Nodes, minDaemonPods)
	case c.Pods > maxPods*c.Nodes:
		return invalid.Errorf("{Pods} (%d) is more than %d nodes can run at the kubelet's maxPods %d (%d)", c.Pods, c.Nodes, maxPods, maxPods*c.Nodes)
	case c.Deployments > c.Pods:
		return invalid.Errorf("{Deployments} (%d) is more than the pods (%d): each has at least one", c.Deployments, c.Pods)
	case c.Churn < 0 || math.IsNaN(c.Churn) || math.IsInf(c.Churn, 0):
		return invalid.Errorf("{Churn} must not be negative, not %g", c.Churn)
	case c.Churn*minPodLifetime > float64(c.Pods):
		return invalid.Errorf("{Churn} %g pods/s turns %d pods over faster than once a minute (at most %g)",
			c.Churn, c.Pods, float64(c.Pods)/minPodLifetime)
	}
	b := c.Bytes
	for _, f := range []struct {
		name string
		v    int
	}{{"Pod", b.Pod}, {"PodCreate", b.PodCreate}, {"Node", b.Node}, {"Lease", b.Lease}, {"Event", b.Event},
		{"Endpoints", b.Endpoints}, {"EndpointSlice", b.EndpointSlice}, {"ReplicaSet", b.ReplicaSet},
		{"Deployment", b.Deployment}, {"Service", b.Service}, {"Namespace", b.Namespace}, {"ServiceAccount", b.ServiceAccount}} {
		if f.v < 1 || f.v > maxValueBytes {
			return invalid.Errorf("{Bytes} of a %s must be from 1 to %d (etcd's request limit), not %d", f.name, maxValueBytes, f.v)
		}
	}
	if b.PodCreate > b.Pod {
		return invalid.Errorf("{Bytes}: a pod as created (%d) cannot be larger than running (%d)", b.PodCreate, b.Pod)
	}
	return nil
}

// maxValueBytes is etcd's default request limit (--max-request-bytes,
// 1.5 MiB).
const maxValueBytes = 1536 * 1024

// Scale returns c with every count (nodes, pods, namespaces, services,
// deployments, watchers per apiserver) and the churn multiplied by m,
// counts rounded and at least 1 where c's was; object sizes are
// unchanged, and so is APIServers: the control plane's shape, not a count
// that grows with the cluster (a scaled-down cluster keeps its three
// apiservers, each with its own watches, health checks and counts).
func (c Cluster) Scale(m float64) Cluster {
	n := func(v int) int {
		if v <= 0 {
			return v
		}
		return max(1, int(math.Round(float64(v)*m)))
	}
	c.Nodes, c.Pods, c.Namespaces = n(c.Nodes), n(c.Pods), n(c.Namespaces)
	c.Services, c.Deployments, c.WatchersPerAPIServer = n(c.Services), n(c.Deployments), n(c.WatchersPerAPIServer)
	c.Churn *= m
	return c
}
