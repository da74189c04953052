package kube

import (
	"time"

	"github.com/etcdlab/etcdlab/invalid"
)

// Where each default comes from (kubernetes/kubernetes unless named). The
// same strings go into the result's components.
const (
	srcControllerManager = "kube-controller-manager --kube-api-qps 20, --kube-api-burst 30 " +
		"(SetDefaults_KubeControllerManagerConfiguration, pkg/controller/apis/config/v1alpha1/defaults.go); " +
		"each controller builds its own client from that config (ControllerClientBuilder), so each has its own bucket"
	srcDeployment    = "--concurrent-deployment-syncs 5 (pkg/controller/deployment/config/v1alpha1/defaults.go)"
	srcReplicaSet    = "--concurrent-replicaset-syncs 5 (pkg/controller/replicaset/config/v1alpha1/defaults.go); slow start 1, 2, 4, ... (SlowStartInitialBatchSize = 1, pkg/controller/controller_utils.go); at most BurstReplicas = 500 creates a sync (pkg/controller/replicaset/replica_set.go)"
	srcEndpoints     = "--concurrent-endpoint-syncs 5 (pkg/controller/endpoint/config/v1alpha1/defaults.go)"
	srcEndpointSlice = "--concurrent-service-endpoint-syncs 5, --max-endpoints-per-slice 100 (pkg/controller/endpointslice/config/v1alpha1/defaults.go)"
	srcGC            = "garbage collector: deletes dependents in the background, through its own kube-controller-manager client"
	srcScheduler     = "KubeSchedulerConfiguration clientConnection qps 50, burst 100 (pkg/scheduler/apis/config/v1/defaults.go); " +
		"one pod scheduled at a time, binding asynchronous"
	srcKubelet = "KubeletConfiguration kubeAPIQPS 50, kubeAPIBurst 100, eventRecordQPS 50, eventBurst 100, maxPods 110, " +
		"nodeLeaseDurationSeconds 40 renewed every 0.25 of it (nodeLeaseRenewIntervalFraction, pkg/kubelet/kubelet.go), " +
		"nodeStatusUpdateFrequency 10s, nodeStatusReportFrequency 5m (pkg/kubelet/apis/config/v1beta1/defaults.go, since 1.27)"
	srcHollowKubelet = "hollow kubelet (kubemark): --kube-api-qps 10, --kube-api-burst 20 (cmd/kubemark/app/hollow_node.go), " +
		"no events (FakeRecorder) and every container ready at once (prober FakeManager, pkg/kubemark/hollow_kubelet.go)"
	srcHeartbeat      = "the kubelet's heartbeat client (node lease, node status) has no rate limit: QPS -1 (cmd/kubelet/app/server.go)"
	srcLeaderElection = "leader election: a 15 s lease renewed every 2 s (RecommendedDefaultLeaderElectionConfiguration, " +
		"k8s.io/component-base/config/v1alpha1/defaults.go), the leader's renewal one update without a GET " +
		"(tryAcquireOrRenew's fast path, k8s.io/client-go tools/leaderelection/leaderelection.go); " +
		"kube-controller-manager's own leader-election client of its limits"
	srcIdentityLease = "kube-apiserver's identity lease in kube-system, renewed every 10 s (IdentityLeaseRenewIntervalPeriod, " +
		"pkg/controlplane/apiserver/server.go) by the lease controller from its latest copy (k8s.io/component-helpers " +
		"apimachinery/lease/controller.go), through the apiserver's loopback client (no limit modelled)"
	srcAPIServer = "kube-apiserver: event leases reused 60 s or 1,000 objects (k8s.io/apiserver pkg/storage/etcd3/lease_manager.go), " +
		"--event-ttl 1h, compaction every 5 min (DefaultCompactInterval, pkg/storage/storagebackend/config.go), " +
		"health Get on /registry/health every 1 s (kubeadm's /readyz readiness probe period; not checked in source here), " +
		"object counts every 1 min (--etcd-count-metric-poll-period; not checked in source here)"
	srcUser = "the user applying the manifest (kubectl): no client-side limit modelled, one request after the other"
)

// DefaultLimits returns Kubernetes' defaults (sources above).
func DefaultLimits() Limits {
	return Limits{
		ControllerManager:     ClientLimits{QPS: 20, Burst: 30},
		Scheduler:             ClientLimits{QPS: 50, Burst: 100},
		Kubelet:               ClientLimits{QPS: 50, Burst: 100},
		KubeletEvents:         ClientLimits{QPS: 50, Burst: 100},
		HollowKubelet:         ClientLimits{QPS: 10, Burst: 20},
		DeploymentWorkers:     5,
		ReplicaSetWorkers:     5,
		EndpointWorkers:       5,
		EndpointSliceWorkers:  5,
		SlowStartInitialBatch: 1,
		BurstReplicas:         500,
		NodeLeaseDuration:     40 * time.Second,
		NodeStatusReport:      5 * time.Minute,
		NodeStatusUpdate:      10 * time.Second,
		EventLeaseReuse:       60 * time.Second,
		EventLeaseMaxObjects:  1000,
		EventTTL:              time.Hour,
		CompactionInterval:    5 * time.Minute,
		EndpointsPerSlice:     100,
		HealthCheckInterval:   time.Second,
		CountPollPeriod:       time.Minute,
	}
}

// DefaultSpec returns the field report's manifest: 10 deployments of 50
// replicas with a service each on 6 worker nodes behind 3 apiservers,
// under Kubernetes' default limits.
func DefaultSpec() Spec {
	return Spec{
		Mode: ModeManifest, Deployments: 10, Replicas: 50, Services: true, Namespace: "default",
		Nodes: 6, PodsPerNode: 110, APIServers: 3,
		Duration: 5 * time.Minute, ChurnPerMinute: 1,
		Timeout: 10 * time.Minute, RequestTimeout: 10 * time.Second,
		Limits: DefaultLimits(),
	}
}

// withDefaults fills the zero fields of s from DefaultSpec (Services is a
// bool and keeps its value).
func withDefaults(s Spec) Spec {
	d := DefaultSpec()
	setZero(&s.Mode, d.Mode)
	setZero(&s.Deployments, d.Deployments)
	setZero(&s.Replicas, d.Replicas)
	setZero(&s.Namespace, d.Namespace)
	setZero(&s.Nodes, d.Nodes)
	setZero(&s.PodsPerNode, d.PodsPerNode)
	setZero(&s.APIServers, d.APIServers)
	setZero(&s.Duration, d.Duration)
	setZero(&s.ChurnPerMinute, d.ChurnPerMinute)
	setZero(&s.Timeout, d.Timeout)
	setZero(&s.RequestTimeout, d.RequestTimeout)
	l, dl := &s.Limits, d.Limits
	setZero(&l.ControllerManager.QPS, dl.ControllerManager.QPS)
	setZero(&l.ControllerManager.Burst, dl.ControllerManager.Burst)
	setZero(&l.Scheduler.QPS, dl.Scheduler.QPS)
	setZero(&l.Scheduler.Burst, dl.Scheduler.Burst)
	setZero(&l.Kubelet.QPS, dl.Kubelet.QPS)
	setZero(&l.Kubelet.Burst, dl.Kubelet.Burst)
	setZero(&l.HollowKubelet.QPS, dl.HollowKubelet.QPS)
	setZero(&l.HollowKubelet.Burst, dl.HollowKubelet.Burst)
	setZero(&l.KubeletEvents.QPS, dl.KubeletEvents.QPS)
	setZero(&l.KubeletEvents.Burst, dl.KubeletEvents.Burst)
	setZero(&l.DeploymentWorkers, dl.DeploymentWorkers)
	setZero(&l.ReplicaSetWorkers, dl.ReplicaSetWorkers)
	setZero(&l.EndpointWorkers, dl.EndpointWorkers)
	setZero(&l.EndpointSliceWorkers, dl.EndpointSliceWorkers)
	setZero(&l.SlowStartInitialBatch, dl.SlowStartInitialBatch)
	setZero(&l.BurstReplicas, dl.BurstReplicas)
	setZero(&l.NodeLeaseDuration, dl.NodeLeaseDuration)
	setZero(&l.NodeStatusReport, dl.NodeStatusReport)
	setZero(&l.NodeStatusUpdate, dl.NodeStatusUpdate)
	setZero(&l.EventLeaseReuse, dl.EventLeaseReuse)
	setZero(&l.EventLeaseMaxObjects, dl.EventLeaseMaxObjects)
	setZero(&l.EventTTL, dl.EventTTL)
	setZero(&l.CompactionInterval, dl.CompactionInterval)
	setZero(&l.EndpointsPerSlice, dl.EndpointsPerSlice)
	setZero(&l.HealthCheckInterval, dl.HealthCheckInterval)
	setZero(&l.CountPollPeriod, dl.CountPollPeriod)
	return s
}

func setZero[T comparable](p *T, v T) {
	var zero T
	if *p == zero {
		*p = v
	}
}

// validate rejects a spec (with defaults applied) that cannot run.
func validate(s Spec) error {
	switch {
	case s.Mode != ModeManifest && s.Mode != ModeSteady:
		return invalid.Errorf("{Mode} must be %q or %q, not %q", ModeManifest, ModeSteady, s.Mode)
	case s.Deployments < 0 || s.Replicas < 0:
		return invalid.Errorf("{Deployments} and {Replicas} must not be negative")
	case s.Nodes < 0 || s.PodsPerNode < 0 || s.APIServers < 0:
		return invalid.Errorf("{Nodes}, {PodsPerNode} and {APIServers} must not be negative")
	case s.Nodes*s.PodsPerNode < s.Deployments*s.Replicas:
		return invalid.Errorf("{Nodes} × {PodsPerNode} (%d) cannot hold {Deployments} × {Replicas} (%d) pods",
			s.Nodes*s.PodsPerNode, s.Deployments*s.Replicas)
	case s.ImagePull < 0 || s.ContainerStart < 0:
		return invalid.Errorf("{ImagePull} and {ContainerStart} must not be negative")
	case s.Mode == ModeSteady && s.Duration <= 0:
		return invalid.Errorf("{Duration} must be positive in steady mode")
	case s.ChurnPerMinute < 0:
		return invalid.Errorf("{ChurnPerMinute} must not be negative")
	}
	l := s.Limits
	for _, c := range []ClientLimits{l.ControllerManager, l.Scheduler, l.Kubelet, l.KubeletEvents, l.HollowKubelet} {
		if c.QPS < 0 || c.Burst < 1 {
			return invalid.Errorf("client limits need a QPS ≥ 0 and a burst ≥ 1 ({Limits})")
		}
	}
	if l.DeploymentWorkers < 1 || l.ReplicaSetWorkers < 1 || l.EndpointWorkers < 1 || l.EndpointSliceWorkers < 1 ||
		l.SlowStartInitialBatch < 1 || l.BurstReplicas < 1 || l.EndpointsPerSlice < 1 || l.EventLeaseMaxObjects < 1 ||
		l.NodeLeaseDuration < 4*time.Millisecond || l.NodeStatusUpdate <= 0 || l.EventTTL < time.Second {
		return invalid.Errorf("{Limits} has a worker count, batch, duration or TTL below its minimum")
	}
	return nil
}
