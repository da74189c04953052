package bench

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/cluster"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	"github.com/etcdlab/etcdlab/load"
	"github.com/etcdlab/etcdlab/load/kube"
	"github.com/etcdlab/etcdlab/load/safety"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/pflag"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// CmdKube is the Kubernetes-shaped workload (package load/kube): not one
// of etcd benchmark's commands, so it keeps etcdlab's name.
const CmdKube = "kube"

// kubeOptions are the flags of bench kube. Defaults: the multi-cloud field
// report's manifest (10 deployments × 50 replicas, a service each, 6
// worker nodes) and Kubernetes' own limits (kube.DefaultLimits, each with
// its source).
type kubeOptions struct {
	spec         kube.Spec
	steady       bool
	controlPlane string
	real         KubeReal
}

func (o *kubeOptions) register(fl *pflag.FlagSet) {
	s, l := &o.spec, &o.spec.Limits
	*l = kube.DefaultLimits()
	fl.IntVar(&s.Deployments, "deployments", 10, "deployments in the manifest")
	fl.IntVar(&s.Replicas, "replicas", 50, "replicas of each deployment")
	fl.BoolVar(&s.Services, "services", true, "a service for each deployment (--services=false: none)")
	fl.StringVar(&s.Namespace, "namespace", "default", "namespace of the manifest's objects")
	fl.IntVar(&s.Nodes, "nodes", 6, "emulated worker nodes, each with a kubelet")
	fl.IntVar(&s.PodsPerNode, "pods-per-node", 110, "max pods per node (kubelet --max-pods)")
	fl.DurationVar(&s.ImagePull, "image-pull", 0, "time each pod waits for its image after being bound (etcd does not cause it; reported apart)")
	fl.DurationVar(&s.ContainerStart, "container-start", 0, "time each pod's containers take to start (etcd does not cause it; reported apart)")
	fl.BoolVar(&o.steady, "steady", false, "steady state for --duration: node lease renewals and status updates, deployment churn")
	fl.Float64Var(&s.ChurnPerMinute, "churn-per-minute", 1, "steady state: deployments deleted and re-created per minute (-1: none)")
	fl.IntVar(&s.APIServers, "apiservers", 3, "emulated kube-apiservers, each with its own watch caches (the field report's 3 control-plane nodes)")
	fl.BoolVar(&s.HollowKubelets, "hollow-kubelets", false, "the kubelets are kubemark's hollow kubelets, as a real control plane is measured with: 10 QPS / 20 burst, no events, pods ready at once")
	fl.Float64Var(&l.HollowKubelet.QPS, "hollow-kubelet-qps", l.HollowKubelet.QPS, "a hollow kubelet's --kube-api-qps (kubemark's default; --hollow-kubelets and the real control plane's nodes)")
	fl.IntVar(&l.HollowKubelet.Burst, "hollow-kubelet-burst", l.HollowKubelet.Burst, "a hollow kubelet's --kube-api-burst")
	fl.BoolVar(&s.Teardown, "teardown", false, "after every pod is Ready, delete the manifest through the control plane (garbage collector, kubelets) and measure it")
	fl.DurationVar(&s.Timeout, "ready-timeout", 10*time.Minute, "give up waiting for every pod Ready after this long")
	fl.Float64Var(&l.ControllerManager.QPS, "controller-manager-qps", l.ControllerManager.QPS, "kube-controller-manager --kube-api-qps (per controller client)")
	fl.IntVar(&l.ControllerManager.Burst, "controller-manager-burst", l.ControllerManager.Burst, "kube-controller-manager --kube-api-burst")
	fl.Float64Var(&l.Scheduler.QPS, "scheduler-qps", l.Scheduler.QPS, "kube-scheduler clientConnection.qps")
	fl.IntVar(&l.Scheduler.Burst, "scheduler-burst", l.Scheduler.Burst, "kube-scheduler clientConnection.burst")
	fl.Float64Var(&l.Kubelet.QPS, "kubelet-qps", l.Kubelet.QPS, "kubelet kubeAPIQPS")
	fl.IntVar(&l.Kubelet.Burst, "kubelet-burst", l.Kubelet.Burst, "kubelet kubeAPIBurst")
	fl.IntVar(&l.DeploymentWorkers, "concurrent-deployment-syncs", l.DeploymentWorkers, "deployment controller workers")
	fl.IntVar(&l.ReplicaSetWorkers, "concurrent-replicaset-syncs", l.ReplicaSetWorkers, "replicaset controller workers")
	fl.StringVar(&o.controlPlane, "control-plane", ControlPlaneEmulated, "emulated (the control loops against etcd) or real: kube-apiserver, controller manager, scheduler and kubemark's hollow nodes built from k8s.io/kubernetes (docs/kube.md), on a lab cluster only")
	fl.StringVar(&o.real.Version, "kube-version", kubebuild.Pinned, "the real control plane's Kubernetes version (built once and cached)")
	fl.StringVar(&o.real.StateFile, "state-file", cluster.DefaultStateFile, "the real control plane: the state file of the lab cluster its --endpoints must be (etcdlab cluster up)")
}

func (o *kubeOptions) apply(cfg *Config) {
	cfg.Kube = o.spec
	cfg.ControlPlane, cfg.KubeReal = o.controlPlane, o.real
	cfg.Kube.Mode = kube.ModeManifest
	if o.steady {
		cfg.Kube.Mode = kube.ModeSteady
	}
}

// validateKube checks bench kube's options.
func (c *Config) validateKube() error {
	s := c.Kube
	for _, f := range []struct {
		field string
		n     int
	}{{"Deployments", s.Deployments}, {"Replicas", s.Replicas}, {"Nodes", s.Nodes}, {"PodsPerNode", s.PodsPerNode}} {
		if f.n < 1 {
			return invalid.Errorf("{"+f.field+"} must be at least 1, not %d", f.n)
		}
	}
	if s.Mode == kube.ModeManifest && s.Deployments*s.Replicas > s.Nodes*s.PodsPerNode {
		return invalid.Errorf("{Deployments} × {Replicas} = %d pods do not fit on {Nodes} %d × {PodsPerNode} %d", s.Deployments*s.Replicas, s.Nodes, s.PodsPerNode)
	}
	if s.Mode == kube.ModeSteady && c.Duration <= 0 {
		return invalid.Errorf("a steady-state run ({Steady}) needs a {Duration}")
	}
	if s.ImagePull < 0 || s.ContainerStart < 0 || s.Timeout < 0 {
		return invalid.Errorf("{ImagePull}, {ContainerStart} and {ReadyTimeout} must not be negative")
	}
	if s.APIServers < 1 {
		return invalid.Errorf("{Apiservers} must be at least 1, not %d", s.APIServers)
	}
	l := s.Limits
	bad := func(cl kube.ClientLimits) bool { return cl.QPS <= 0 || cl.Burst < 1 }
	switch {
	case bad(l.ControllerManager):
		return invalid.Errorf("{ControllerManagerQPS} must be above 0 and {ControllerManagerBurst} at least 1")
	case bad(l.Scheduler):
		return invalid.Errorf("{SchedulerQPS} must be above 0 and {SchedulerBurst} at least 1")
	case bad(l.Kubelet):
		return invalid.Errorf("{KubeletQPS} must be above 0 and {KubeletBurst} at least 1")
	case bad(l.HollowKubelet):
		return invalid.Errorf("{HollowKubeletQPS} must be above 0 and {HollowKubeletBurst} at least 1")
	}
	if l.DeploymentWorkers < 1 || l.ReplicaSetWorkers < 1 {
		return invalid.Errorf("{ConcurrentDeploymentSyncs} and {ConcurrentReplicasetSyncs} must be at least 1")
	}
	return nil
}

// kubeSpec is the workload of one run: its keys under the run's prefix.
func (c *Config) kubeSpec() kube.Spec {
	s := c.Kube
	s.Prefix = strings.TrimSuffix(c.Prefix, "/")
	s.Duration, s.RequestTimeout = c.Duration, c.RequestTimeout
	return s
}

// KubeEmulated is the Engine of bench kube on load/kube's emulated
// control plane: the control loops against etcd directly, one run per
// iteration. A stateless value.
type KubeEmulated struct{}

// Name names the engine.
func (KubeEmulated) Name() string { return "kube emulated" }

// For accepts bench kube with ControlPlane emulated (or unset).
func (KubeEmulated) For(c *Config) bool {
	return c.Command == CmdKube && (c.ControlPlane == "" || c.ControlPlane == ControlPlaneEmulated)
}

// Run runs the Kubernetes-shaped workload's iterations. On a cluster
// etcdlab did not start, kube-apiserver's compaction (which compacts the
// whole key space, everyone's history) stays off unless Compact says so.
func (KubeEmulated) Run(ctx context.Context, r *Runs) error {
	c, t := r.cfg, r.t
	if t.local == nil && !c.Compact {
		c.Kube.Limits.CompactionInterval = -1
		r.Note("kube-apiserver's compaction every 5 min is off: it compacts the whole cluster, not only the workload's keys (--compact turns it on)")
	}
	kv, closeKV, err := c.kubeKV(ctx, t, r.doc)
	if err != nil {
		return runFailure(err)
	}
	defer closeKV()
	return r.Iterate(ctx, CmdKube, func(info RunInfo) (result.Run, error) {
		s := c.kubeSpec()
		s.KV = kv
		if p := r.obs.progress(info); p != nil {
			s.Progress = func(ready, total int) { p(int64(ready), int64(total)) }
		}
		s.Live = r.obs.live
		return r.obs.run(ctx, info, func() (result.Run, error) {
			cpu := load.StartCPU()
			kr, err := kube.Run(ctx, t.cli, s)
			kr.LoadCPUCores, kr.MachineCPUCores = cpu.Cores()
			kr.LoadCoresLimit = cpu.Procs()
			return kr, err
		})
	})
}

// kubeKV is the transport of the kube-apiservers' Range and Txn requests:
// the wire engine's (as every bench workload's, and far cheaper in CPU than
// gRPC-go for small calls) unless the engine is grpc or the connection
// authenticates as a user (wire sends no token), when it is nil: etcd's
// clientv3 client over gRPC-go. Watches and leases always use clientv3.
func (c *Config) kubeKV(ctx context.Context, t *target, doc *result.Document) (pb.KVClient, func(), error) {
	if c.Engine == EngineGRPC {
		return nil, func() {}, nil
	}
	u, err := load.DialUnary(ctx, t.conn)
	if errors.Is(err, load.ErrUnaryNeedsGRPC) {
		doc.Notes = append(doc.Notes, "the kube-apiservers' requests went through gRPC-go, not the wire engine: the connection authenticates as a user and wire sends no token")
		return nil, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return u.KV(), u.Close, nil
}

// EstimateBytes bounds what a kube run adds to the database before
// compaction: every pod written about 8 times (create, binding, status
// phases, deletion) and the manifest's other objects about 10 times, each
// revision about 4 KiB (a pod in protobuf with its status), per
// iteration. A real control plane writes the same objects.
func (KubeEmulated) EstimateBytes(c *Config, _ float64) int64 {
	s := c.Kube
	writes := float64(s.Deployments*s.Replicas*8+s.Deployments*10*3) * float64(c.Iterations)
	if s.Mode == kube.ModeSteady {
		writes += float64(s.Nodes) * c.Duration.Seconds() / 10 * 2
	}
	return safety.Estimate(writes, 1, c.Prefix+"registry/pods/default/", 48, 4096)
}
