// Package kubecp runs a real Kubernetes control plane (kube-apiserver,
// kube-controller-manager, kube-scheduler, built by lab/kubebuild) against
// a lab cluster's etcd, as ground truth for what the emulated one of load/kube
// sends. The lab makes its certificates and service-account keys; the
// processes are its children, die with it (even when it is SIGKILLed) and
// leave their files in a run directory that Stop removes and that the next
// Start in the same place sweeps when a killed run left it.
//
// The apiserver writes under its default /registry prefix of the etcd it
// is given, plus the key compact_rev_key, and compacts that etcd's whole
// history every 5 minutes (its storage defaults): give it a lab cluster's
// endpoints only (lab/cluster's Cluster.Client), never a cluster holding
// anyone's data. kubecp cannot tell a lab cluster from another; that check
// is the caller's.
package kubecp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/child"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
	"github.com/etcdlab/etcdlab/lab/kubebuild"
)

// Binaries are the control plane's executables (lab/kubebuild's Binaries
// of kubebuild.ControlPlane()).
type Binaries struct {
	APIServer, ControllerManager, Scheduler string
}

// BinariesOf picks the control plane's executables out of what
// lab/kubebuild's Builder.Binaries or Cached returned.
func BinariesOf(paths map[kubebuild.Component]string) Binaries {
	return Binaries{APIServer: paths[kubebuild.APIServer], ControllerManager: paths[kubebuild.ControllerManager], Scheduler: paths[kubebuild.Scheduler]}
}

// Options configure a control plane.
type Options struct {
	Binaries Binaries
	// Etcd is the lab cluster the apiserver stores in: its client URLs and,
	// when it serves TLS, its CA and a client certificate and key.
	Etcd etcdclient.Config
	// Dir is where the run directory is made (certificates, kubeconfigs,
	// logs): a lab cluster's data directory, say. Empty means
	// $TMPDIR/etcdlab-kubecp. Start removes the run directories a killed
	// process left there.
	Dir string
	// ReadyTimeout bounds the wait for /readyz and both leaders; zero
	// means 2 minutes.
	ReadyTimeout time.Duration
	// ExtraArgs are added to a component's command line, keyed by its
	// name (kube-apiserver, kube-controller-manager, kube-scheduler; the
	// apiserver's go to every apiserver), after the lab's own flags: the
	// later flag wins.
	ExtraArgs map[string][]string
	// APIServers is how many kube-apiservers run (zero means one). A lone
	// apiserver is given every etcd endpoint; several are given one
	// member each, in turn (apiserver i the member of endpoint i), as on
	// stacked control-plane nodes. The controller manager and the
	// scheduler talk to the first; nodes are spread over them all.
	APIServers int
}

// ControlPlane is a running control plane. Its methods are safe for
// concurrent use; Stop ends it once, and later calls return the first
// result.
type ControlPlane struct {
	run    string   // the run directory
	url    string   // the first apiserver's
	urls   []string // every apiserver's
	creds  *credentials
	kcfg   string
	client *http.Client
	sp     *child.Spawner
	stop   func() error

	mu    sync.Mutex
	procs []*child.Process // in start order
	nodes bool             // hollow nodes were started
}

// addProc records a started process.
func (cp *ControlPlane) addProc(p *child.Process) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	cp.procs = append(cp.procs, p)
}

// processes are the started processes, in start order.
func (cp *ControlPlane) processes() []*child.Process {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return slices.Clone(cp.procs)
}

// Start starts kube-apiserver, then kube-controller-manager and
// kube-scheduler (both with leader election), and returns once the
// apiserver's /readyz answers ok and both hold their leader lease. A
// failed start leaves nothing running and removes what it wrote; its
// error carries the failing component's log tail.
func Start(ctx context.Context, o Options) (cp *ControlPlane, err error) {
	if len(o.Etcd.Endpoints) == 0 {
		return nil, invalid.Errorf("kubecp: no etcd endpoints")
	}
	for _, b := range []string{o.Binaries.APIServer, o.Binaries.ControllerManager, o.Binaries.Scheduler} {
		if fi, err := os.Stat(b); err != nil || fi.IsDir() {
			return nil, invalid.Errorf("kubecp: %q is not a control plane binary (build them with lab/kubebuild)", b)
		}
	}
	base := o.Dir
	if base == "" {
		base = filepath.Join(os.TempDir(), "etcdlab-kubecp")
	}
	run, err := child.RunDir(base)
	if err != nil {
		return nil, fmt.Errorf("kubecp: %w", err)
	}
	cp = &ControlPlane{run: run, sp: child.NewSpawner()}
	cp.stop = sync.OnceValue(cp.teardown)
	defer func() {
		if err != nil {
			_ = cp.Stop()
			cp = nil
		}
	}()
	files, err := writeCredentials(run)
	if err != nil {
		return cp, err
	}
	n := max(o.APIServers, 1)
	ports := make([]int, n)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return cp, err
		}
		cp.urls = append(cp.urls, fmt.Sprintf("https://127.0.0.1:%d", ports[i]))
	}
	cp.url, cp.creds = cp.urls[0], files
	if cp.kcfg, err = files.kubeconfigs(cp.url); err != nil {
		return cp, err
	}
	if cp.client, err = files.adminClient(); err != nil {
		return cp, err
	}
	timeout := o.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for i, c := range commands(o, files, ports) {
		extra := o.ExtraArgs[c.name]
		if i < n {
			extra = o.ExtraArgs[apiserverName]
		}
		if err := cp.start(c.name, c.path, append(c.args, extra...), nil); err != nil {
			return cp, err
		}
		if i == n-1 { // the apiservers start together; the others need them
			for j, u := range cp.urls {
				if err := cp.waitReady(ctx, apiserverLog(j, n), u); err != nil {
					return cp, err
				}
			}
		}
	}
	if err := cp.waitLeaders(ctx); err != nil {
		return cp, err
	}
	return cp, nil
}

// URL is the first apiserver's address (https://127.0.0.1:PORT).
func (cp *ControlPlane) URL() string { return cp.url }

// URLs are every apiserver's address, the first first.
func (cp *ControlPlane) URLs() []string { return slices.Clone(cp.urls) }

// Kubeconfig is the path of an administrator's kubeconfig (group
// system:masters), for kubectl or client-go's clientcmd.
func (cp *ControlPlane) Kubeconfig() string { return cp.kcfg }

// HTTPClient is an HTTP client that trusts the apiserver and presents the
// administrator's certificate.
func (cp *ControlPlane) HTTPClient() *http.Client { return cp.client }

// Dir is the run directory: certificates, kubeconfigs and each
// component's log (kube-apiserver.log, ...). Stop removes it.
func (cp *ControlPlane) Dir() string { return cp.run }

// Stop ends the components in reverse order (SIGTERM, SIGKILL after 10 s)
// and removes the run directory.
func (cp *ControlPlane) Stop() error { return cp.stop() }

// teardown is Stop's work, done once.
func (cp *ControlPlane) teardown() error {
	var errs []error
	procs := cp.processes()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(syscall.SIGTERM, 10*time.Second)
	}
	cp.sp.Close()
	cp.mu.Lock()
	nodes := cp.nodes
	cp.mu.Unlock()
	if nodes {
		sweepRuntimeSockets()
	}
	if cp.client != nil {
		cp.client.CloseIdleConnections()
	}
	if err := os.RemoveAll(cp.run); err != nil {
		errs = append(errs, fmt.Errorf("kubecp: %w", err))
	}
	return errors.Join(errs...)
}
