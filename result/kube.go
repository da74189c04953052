package result

// KubeRun is what one iteration of the Kubernetes-shaped workload (`bench
// kube`) measured, beside the run's Stats (every request it sent) and Ops
// (one per verb and resource: "create pods", "update pods/status").
type KubeRun struct {
	// Mode is "manifest" (apply the manifest, wait for every pod Ready,
	// delete it) or "steady" (node heartbeats and churn for a duration).
	Mode string `json:"mode"`
	// TimeToReadySeconds is from the first create of the manifest until
	// the last of its pods was Ready, as a watcher of pods saw it (the
	// field report's figure); 0 in steady mode or when not every pod
	// became Ready (PodsReady < Pods).
	TimeToReadySeconds float64 `json:"time_to_ready_seconds,omitempty"`
	Pods               int     `json:"pods"`
	PodsReady          int     `json:"pods_ready"`
	// Milestones are the seconds from the first create until every object
	// of a stage existed or every pod reached it: "replicasets created",
	// "pods created", "pods scheduled", "pods running", "pods ready",
	// "endpoints complete".
	Milestones []KubeMilestone `json:"milestones,omitempty"`
	// NotEtcdSeconds is the time the chain spent outside etcd by the
	// model's parameters (image pull and container start per pod, as
	// configured; 0 by default), so TimeToReadySeconds less what it adds
	// on the critical path is etcd's and the control loops' share.
	NotEtcdSeconds float64 `json:"not_etcd_seconds,omitempty"`
	// Objects is the number of keys under the workload's /registry at
	// the end of the apply (before deletion).
	Objects int64 `json:"objects,omitempty"`
	// Conflicts counts optimistic updates that lost (Txn's else branch)
	// and were retried from the object etcd returned.
	Conflicts int64 `json:"conflicts,omitempty"`
	// WatchLag is from a write's response to its event at each watcher,
	// over every watcher and event; WatchEvents how many were matched.
	WatchLag    *Latency `json:"watch_lag_seconds,omitempty"`
	WatchEvents int64    `json:"watch_events,omitempty"`
	// Components are the control loops and their client-side limits as
	// run (defaults from Kubernetes, each with its source).
	Components []KubeComponent `json:"components,omitempty"`
	// SLOs are Kubernetes' published API SLOs judged on this run.
	SLOs []KubeSLO `json:"slos,omitempty"`
	// ControlPlane is "" for the emulated control plane, else the real
	// one's description ("real: Kubernetes 1.34.2, 3 kube-apiserver(s), ...").
	ControlPlane string `json:"control_plane,omitempty"`
	// EtcdRequests are the apiservers' storage requests to etcd by
	// operation and resource, as kube-apiserver's etcd_requests_total
	// counts them (a binding or a status patch is an "update pods"),
	// busiest first: the emulated apiservers' own count, or a real
	// control plane's metric (summed over its apiservers, with the mean
	// latency from etcd_request_duration_seconds). The two compare.
	EtcdRequests []KubeEtcdRequests `json:"etcd_requests,omitempty"`
}

// KubeEtcdRequests is one series of kube-apiserver's etcd_requests_total:
// requests of an operation ("get", "create", "update", "delete", "list",
// "listWithCount") on a resource ("pods"), and for a real control plane
// their mean latency (its histograms' buckets give no useful quantiles).
type KubeEtcdRequests struct {
	Operation   string  `json:"operation"`
	Resource    string  `json:"resource"`
	Requests    int64   `json:"requests"`
	MeanSeconds float64 `json:"mean_seconds,omitempty"`
}

// KubeMilestone is one stage of the chain from Deployment to Ready pod.
type KubeMilestone struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// KubeComponent is one emulated control-plane component and its client
// settings.
type KubeComponent struct {
	Name     string  `json:"name"` // "replicaset-controller", "kube-scheduler", "kubelet"
	QPS      float64 `json:"qps"`
	Burst    int     `json:"burst"`
	Workers  int     `json:"workers,omitempty"`
	Source   string  `json:"source"` // where the defaults come from
	Requests int64   `json:"requests"`
	// ThrottledSeconds is the time its requests waited for its client-side
	// rate limiter, summed.
	ThrottledSeconds float64 `json:"throttled_seconds,omitempty"`
}

// KubeSLO is one of Kubernetes' API SLOs (sig-scalability slos.md) on the
// requests of a verb and resource scope.
type KubeSLO struct {
	Name      string  `json:"name"` // "mutating API calls p99 per resource and verb"
	Worst     string  `json:"worst"`
	P99       float64 `json:"p99_seconds"`
	Threshold float64 `json:"threshold_seconds"`
	Passed    bool    `json:"passed"`
	Source    string  `json:"source"`
}

// KubeConfig is bench kube's workload as configured.
type KubeConfig struct {
	Mode           string   `json:"mode"`
	Deployments    int      `json:"deployments"`
	Replicas       int      `json:"replicas"`
	Services       bool     `json:"services"`
	Namespace      string   `json:"namespace"`
	Nodes          int      `json:"nodes"`
	PodsPerNode    int      `json:"pods_per_node"`
	ImagePull      Duration `json:"image_pull,omitempty"`
	ContainerStart Duration `json:"container_start,omitempty"`
	ChurnPerMinute float64  `json:"churn_per_minute,omitempty"`
	ReadyTimeout   Duration `json:"ready_timeout,omitempty"`
	APIServers     int      `json:"apiservers,omitempty"`
	Teardown       bool     `json:"teardown,omitempty"`
	// HollowKubelets: the kubelets were kubemark's hollow kubelets.
	HollowKubelets bool `json:"hollow_kubelets,omitempty"`
}
