// Package kubebuild builds Kubernetes' own commands (kube-apiserver,
// kube-controller-manager, kube-scheduler, kubemark) from the module
// proxy's k8s.io/kubernetes at a given release, once, into the cache
// lab/etcdbuild uses for etcd ($ETCDLAB_CACHE_DIR or
// ~/.cache/etcdlab/kubernetes/v1.34.2/). It is how the lab gets a real
// control plane (lab/kubecp runs it) without a Kubernetes release download.
//
// k8s.io/kubernetes replaces its staging modules (k8s.io/api,
// k8s.io/client-go, ...) with local paths, which a consumer does not
// have and whose replace directives do not apply to it: the build's
// scratch module requires k8s.io/kubernetes vX.Y.Z and pins every module
// that release's go.mod replaces from ./staging to v0.Y.Z, read from that
// go.mod rather than from a list kept here.
package kubebuild

import (
	"fmt"

	"github.com/etcdlab/etcdlab/lab/buildcache"
)

// Pinned is the release the lab's tests and docs use: the one whose
// control plane was measured against lab clusters first (issue 26).
const Pinned = "1.34.2"

// Version is a Kubernetes release 1.MINOR.PATCH; Patch < 0 means "the
// newest patch of that minor the module proxy serves" (lab/buildcache's).
type Version = buildcache.Version

// ParseVersion reads s (1.34.2, v1.34, ...) as a Kubernetes release.
func ParseVersion(s string) (Version, bool) {
	v, ok := buildcache.ParseVersion(s)
	if !ok || v.Major != 1 {
		return Version{}, false
	}
	return v, true
}

// Staging is the version of the staging modules of release v (v0.34.2
// for v1.34.2).
func Staging(v Version) string { return fmt.Sprintf("v0.%d.%d", v.Minor, v.Patch) }

// Component is one of k8s.io/kubernetes/cmd's commands, named as its
// binary.
type Component string

// The components the lab builds.
const (
	APIServer         Component = "kube-apiserver"
	ControllerManager Component = "kube-controller-manager"
	Scheduler         Component = "kube-scheduler"
	// Kubemark runs hollow nodes: the kubelet's code with a fake runtime.
	Kubemark Component = "kubemark"
)

// ControlPlane is the components a control plane runs.
func ControlPlane() []Component { return []Component{APIServer, ControllerManager, Scheduler} }

// pkg is the component's main package.
func (c Component) pkg() string { return module + "/cmd/" + string(c) }

func (c Component) valid() bool {
	switch c {
	case APIServer, ControllerManager, Scheduler, Kubemark:
		return true
	}
	return false
}
