package kube

import "time"

// DefaultLimits are Kubernetes' defaults (placeholder until the engine
// lands with each default's source).
func DefaultLimits() Limits {
	return Limits{
		ControllerManager: ClientLimits{QPS: 20, Burst: 30}, Scheduler: ClientLimits{QPS: 50, Burst: 100}, Kubelet: ClientLimits{QPS: 50, Burst: 100},
		DeploymentWorkers: 5, ReplicaSetWorkers: 5, EndpointWorkers: 5, EndpointSliceWorkers: 5,
		SlowStartInitialBatch: 1, BurstReplicas: 500, NodeLeaseDuration: 40 * time.Second, NodeStatusReport: 5 * time.Minute,
		EventLeaseReuse: 60 * time.Second, EventLeaseMaxObjects: 1000, EventTTL: time.Hour, CompactionInterval: 5 * time.Minute,
	}
}
