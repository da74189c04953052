// Package kube is the Kubernetes-shaped workload: it drives etcd as
// kube-apiserver does (etcd's client/v3/kubernetes interface, kube-apiserver's
// key layout, request shapes and storage encoding) for the control loops
// that turn Deployments into Ready pods, emulated with Kubernetes' default
// client-side limits, and measures time to Ready, requests per verb and
// resource, and watch lag.
package kube

import (
	"time"

	"github.com/etcdlab/etcdlab/load"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Modes of a run.
const (
	// ModeManifest applies the manifest, waits until every pod is Ready,
	// then deletes it.
	ModeManifest = "manifest"
	// ModeSteady keeps Nodes nodes alive (lease renewals, status updates)
	// with deployment churn for Duration.
	ModeSteady = "steady"
)

// Spec is one run of the workload. A field left at its zero value takes
// DefaultSpec's value, except the booleans (Services, HollowKubelets,
// Teardown), which keep theirs: a zero Spec has no Services although
// DefaultSpec has.
type Spec struct {
	// Prefix is the run's own prefix: every key lives under
	// Prefix + "/registry/".
	Prefix string
	Mode   string
	// The manifest: Deployments deployments of Replicas replicas, each
	// with a Service when Services is set, in Namespace.
	Deployments, Replicas int
	Services              bool
	Namespace             string
	// Nodes is the number of emulated worker nodes (each a kubelet);
	// PodsPerNode their max-pods.
	Nodes, PodsPerNode int
	// HollowKubelets makes the kubelets kubemark's hollow kubelets
	// (cmd/kubemark, pkg/kubemark/hollow_kubelet.go), as a real control
	// plane is measured with: their API client's limit is
	// Limits.HollowKubelet instead of Limits.Kubelet, they
	// send no events (their recorder is a FakeRecorder) and their prober
	// marks every container ready at once (FakeManager), so a pod is Ready
	// from its first status on. Otherwise they are kubelets with a
	// runtime, at the kubelet's defaults.
	HollowKubelets bool
	// APIServers is the number of kube-apiservers: each has its own
	// watch caches (a list and a watch per resource against etcd) and
	// event lease manager; components are spread over them.
	APIServers int
	// ImagePull and ContainerStart are what etcd does not cause: each pod
	// waits this long between being bound and running. 0 by default.
	ImagePull, ContainerStart time.Duration
	// Duration is how long a steady run lasts; ChurnPerMinute how many
	// deployments it deletes and re-creates a minute.
	Duration       time.Duration
	ChurnPerMinute float64
	// Teardown deletes the manifest through the control plane at the end
	// (kubectl delete, the garbage collector, graceful pod deletion by the
	// kubelets), measured like the rest; otherwise the run's keys are only
	// removed by the final cleanup, which is not measured.
	Teardown bool
	// Timeout bounds the wait for every pod Ready in manifest mode.
	Timeout        time.Duration
	RequestTimeout time.Duration
	Limits         Limits
	// KV, if set, carries the kube-apiservers' Range and Txn requests
	// (etcd's kubernetes client builds them as always) instead of the
	// clientv3 client's gRPC-go connection: load.UnaryConn's KV, the load
	// engine's wire transport. Watches, leases, health checks and
	// compaction stay on the clientv3 client. The run does not close it.
	KV pb.KVClient
	// Progress, if set, is called with pods Ready so far and the total
	// (manifest mode) from one goroutine; it must not block.
	Progress func(ready, total int)
	// Live, if set, shows the run's etcd requests (by the operation
	// names of its results) as Prometheus metrics while it runs, and the
	// emulated kube-apiservers' storage metrics as a real one names them
	// (etcd_requests_total, apiserver_resource_objects) with their count
	// (etcdlab_kube_apiservers): one endpoint for all of them, so that
	// `etcdlab profile --apiserver-metrics` reads bench kube's
	// --listen-metrics as it reads kube-apiservers.
	Live *load.Live
}

// ClientLimits are a component's client-side rate limit (client-go's token
// bucket).
type ClientLimits struct {
	QPS   float64
	Burst int
}

// Limits are the control plane's settings that shape how fast the chain
// goes. DefaultLimits documents each default's source.
type Limits struct {
	ControllerManager, Scheduler, Kubelet ClientLimits
	DeploymentWorkers, ReplicaSetWorkers  int
	EndpointWorkers, EndpointSliceWorkers int
	// SlowStartInitialBatch is the replicaset controller's first batch of
	// pod creates (then doubled); BurstReplicas the most pods it creates or
	// deletes in one sync.
	SlowStartInitialBatch, BurstReplicas int
	// NodeLeaseDuration: kubelets renew their Lease every quarter of it.
	NodeLeaseDuration time.Duration
	// NodeStatusReport is how often a kubelet reports node status when
	// nothing changed.
	NodeStatusReport time.Duration
	// EventLeaseReuse and EventLeaseMaxObjects bound how long and for how
	// many events kube-apiserver reuses a lease; EventTTL is the lease's TTL.
	EventLeaseReuse      time.Duration
	EventLeaseMaxObjects int
	EventTTL             time.Duration
	// CompactionInterval is kube-apiserver's compaction period; negative
	// turns compaction off.
	CompactionInterval time.Duration
	// KubeletEvents is the kubelet's event client limit (eventRecordQPS,
	// eventBurst), apart from its API client.
	KubeletEvents ClientLimits
	// HollowKubelet is a hollow kubelet's API client limit (Spec.
	// HollowKubelets): kubemark's --kube-api-qps 10, --kube-api-burst 20
	// (cmd/kubemark/app/hollow_node.go).
	HollowKubelet ClientLimits
	// NodeStatusUpdate is how often a kubelet computes node status (and
	// writes it if it changed or NodeStatusReport passed).
	NodeStatusUpdate time.Duration
	// EndpointsPerSlice is the EndpointSlice controller's
	// max-endpoints-per-slice.
	EndpointsPerSlice int
	// HealthCheckInterval is how often each apiserver's etcd health check
	// runs (its readiness probe); negative turns it off.
	HealthCheckInterval time.Duration
	// CountPollPeriod is how often each apiserver counts the objects of
	// every resource; negative turns it off.
	CountPollPeriod time.Duration
}
