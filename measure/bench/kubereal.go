package bench

import (
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
	"github.com/etcdlab/etcdlab/load/kube"
)

// Control planes of bench kube (Config.ControlPlane): each is an Engine.
const (
	// ControlPlaneEmulated is load/kube's: the control loops emulated
	// against etcd directly (this package's engine).
	ControlPlaneEmulated = "emulated"
	// ControlPlaneReal is a real kube-apiserver, controller manager,
	// scheduler and kubemark's hollow nodes (lab/kubecp), built from
	// k8s.io/kubernetes (lab/kubebuild): package measure/kubereal's
	// engine.
	ControlPlaneReal = "real"
)

// KubeReal configures bench kube through a real control plane (the
// options of package measure/kubereal's engine; its flags are bench
// kube's, so they live here with the others).
type KubeReal struct {
	// Version is Kubernetes' ("1.34.2"); empty means kubebuild.Pinned.
	// Built (about 10 minutes on 2 cores) and cached when missing.
	Version string
	// StateFile is `cluster up`'s state file: the endpoints must be that
	// running cluster's, as the apiservers write under /registry and
	// compact the whole key space, which only a lab cluster may take. A
	// cluster started for the run (or an experiment's) needs none.
	StateFile string
	// Dir is where the control plane's run directory goes (certificates,
	// logs); empty means $TMPDIR/etcdlab-kubecp.
	Dir string
}

// validateKubeReal checks what a real control plane cannot do.
func (c *Config) validateKubeReal() error {
	switch {
	case c.Kube.Mode != kube.ModeManifest:
		return invalid.Errorf("{ControlPlane} real runs the manifest only, not {Steady}")
	case c.Kube.Teardown:
		return invalid.Errorf("{ControlPlane} real does not measure a {Teardown}: the control plane and its objects are removed after each iteration")
	case c.Kube.ImagePull > 0 || c.Kube.ContainerStart > 0:
		return invalid.Errorf("{ControlPlane} real: the hollow kubelets' fake runtime starts containers at once ({ImagePull} and {ContainerStart} apply to the emulated one)")
	case c.Agent.Count > 0:
		return invalid.Errorf("{ControlPlane} real cannot be split over agents")
	}
	if c.KubeReal.Version != "" {
		if _, ok := kubebuild.ParseVersion(c.KubeReal.Version); !ok {
			return invalid.Errorf("{KubeVersion} %q is not a Kubernetes version (1.34.2)", c.KubeReal.Version)
		}
	}
	return nil
}
