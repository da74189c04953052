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
	"sync"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/lab/etcdclient"
)

// Binaries are the control plane's executables (lab/kubebuild's Binaries
// of kubebuild.ControlPlane()).
type Binaries struct {
	APIServer, ControllerManager, Scheduler string
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
	// name (kube-apiserver, kube-controller-manager, kube-scheduler),
	// after the lab's own flags: the later flag wins.
	ExtraArgs map[string][]string
}

// ControlPlane is a running control plane. Its methods are safe for
// concurrent use; Stop ends it once, and later calls return the first
// result.
type ControlPlane struct {
	run    string // the run directory
	url    string
	kcfg   string
	client *http.Client
	sp     *spawner
	procs  []*process // in start order
	stop   func() error
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
	run, err := newRunDir(base)
	if err != nil {
		return nil, err
	}
	cp = &ControlPlane{run: run, sp: newSpawner()}
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
	port, err := freePort()
	if err != nil {
		return cp, err
	}
	cp.url = fmt.Sprintf("https://127.0.0.1:%d", port)
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
	for _, c := range commands(o, files, port) {
		p, err := cp.sp.startProcess(c.name, c.path, append(c.args, o.ExtraArgs[c.name]...), filepath.Join(run, c.name+".log"))
		if err != nil {
			return cp, err
		}
		cp.procs = append(cp.procs, p)
		if c.name == apiserverName {
			if err := cp.waitReady(ctx); err != nil {
				return cp, err
			}
		}
	}
	if err := cp.waitLeaders(ctx); err != nil {
		return cp, err
	}
	return cp, nil
}

// URL is the apiserver's address (https://127.0.0.1:PORT).
func (cp *ControlPlane) URL() string { return cp.url }

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
	for i := len(cp.procs) - 1; i >= 0; i-- {
		cp.procs[i].stop(10 * time.Second)
	}
	cp.sp.close()
	if cp.client != nil {
		cp.client.CloseIdleConnections()
	}
	if err := os.RemoveAll(cp.run); err != nil {
		errs = append(errs, fmt.Errorf("kubecp: %w", err))
	}
	return errors.Join(errs...)
}
