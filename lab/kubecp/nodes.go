package kubecp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	corev1 "k8s.io/api/core/v1"
)

// NodeOptions configure hollow nodes.
type NodeOptions struct {
	// Kubemark is kubemark's binary (lab/kubebuild's Kubemark).
	Kubemark string
	// Count is how many nodes; Prefix names them Prefix0, Prefix1, ...
	// (empty means "hollow-node-").
	Count  int
	Prefix string
	// MaxPods is each kubelet's --max-pods; zero means kubemark's default
	// (110).
	MaxPods int
	// ReadyTimeout bounds the wait for every node Ready; zero means 2
	// minutes.
	ReadyTimeout time.Duration
	// QPS and Burst are the kubelet's API client limits; zero means
	// kubemark's (10 and 20, not the kubelet's own defaults of 50 and 100).
	QPS   float64
	Burst int
	// ExtraArgs are added to every node's command line.
	ExtraArgs []string
}

// notReadyTaint is the taint a new node carries until the node lifecycle
// controller sees it Ready (k8s.io/api's TaintNodeNotReady).
const notReadyTaint = corev1.TaintNodeNotReady

// StartNodes starts o.Count hollow nodes: kubemark --morph=kubelet, the
// real kubelet's code with kubemark's fake container runtime (a pod's
// containers start at once), as clusterloader2 runs them. Node i talks to
// apiserver i (in turn), as a certificate of its own (system:node:NAME).
// It returns the nodes' names once every one is Ready and rid of the
// not-ready taint. The nodes stop with the control plane, first. Each
// node's files (the kubelet's root directory) are in the run directory;
// the fake runtime's socket, which kubemark puts in /tmp whatever TMPDIR
// says, is removed when the node has stopped, or by the next StartNodes
// after a kill.
func (cp *ControlPlane) StartNodes(ctx context.Context, o NodeOptions) ([]string, error) {
	if o.Count < 1 {
		return nil, invalid.Errorf("kubecp: %d nodes: at least one", o.Count)
	}
	if fi, err := os.Stat(o.Kubemark); err != nil || fi.IsDir() {
		return nil, invalid.Errorf("kubecp: %q is not kubemark's binary (build it with lab/kubebuild)", o.Kubemark)
	}
	if o.Prefix == "" {
		o.Prefix = "hollow-node-"
	}
	timeout := o.ReadyTimeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sweepRuntimeSockets()
	var names []string
	for i := range o.Count {
		name := fmt.Sprintf("%s%d", o.Prefix, i)
		if err := cp.startNode(name, cp.urls[i%len(cp.urls)], o); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	var last string
	err := cp.poll(ctx, names[0], func() bool {
		code, body, err := cp.get(ctx, "/api/v1/nodes")
		if err != nil || code != http.StatusOK {
			last = fmt.Sprintf("nodes: %d %v", code, err)
			return false
		}
		var list corev1.NodeList
		if err := json.Unmarshal(body, &list); err != nil {
			last = err.Error()
			return false
		}
		ready := readyNodes(list)
		for _, n := range names {
			if !ready[n] {
				last = fmt.Sprintf("%s is not Ready and untainted (%d of %d are)", n, len(ready), len(names))
				return false
			}
		}
		return true
	}, &last)
	return names, err
}

// startNode starts one hollow node named name against the apiserver at url.
func (cp *ControlPlane) startNode(name, url string, o NodeOptions) error {
	kcfg, err := cp.creds.nodeKubeconfig(name, url)
	if err != nil {
		return err
	}
	tmp := filepath.Join(cp.run, "nodes", name)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return fmt.Errorf("kubecp: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	args := []string{
		"--morph=kubelet",
		"--name=" + name,
		"--kubeconfig=" + kcfg,
		fmt.Sprintf("--kubelet-port=%d", port),
		"--kubelet-read-only-port=0",
		"--use-host-image-service=false", // the fake runtime's images
	}
	if o.MaxPods > 0 {
		args = append(args, fmt.Sprintf("--max-pods=%d", o.MaxPods))
	}
	if o.QPS > 0 {
		args = append(args, fmt.Sprintf("--kube-api-qps=%g", o.QPS))
	}
	if o.Burst > 0 {
		args = append(args, fmt.Sprintf("--kube-api-burst=%d", o.Burst))
	}
	// TMPDIR: kubemark makes the kubelet's root directory with
	// os.MkdirTemp (pkg/kubemark/hollow_kubelet.go).
	env := append(os.Environ(), "TMPDIR="+tmp)
	cp.mu.Lock()
	cp.nodes = true // its fake runtime's sockets are swept at Stop
	cp.mu.Unlock()
	return cp.start(name, o.Kubemark, append(args, o.ExtraArgs...), env)
}

// readyNodes are the nodes of list that are Ready and carry no not-ready
// taint: pods can be scheduled on them.
func readyNodes(list corev1.NodeList) map[string]bool {
	ready := map[string]bool{}
	for _, n := range list.Items {
		ok := false
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				ok = true
			}
		}
		for _, t := range n.Spec.Taints {
			if t.Key == notReadyTaint {
				ok = false
			}
		}
		if ok {
			ready[n.Name] = true
		}
	}
	return ready
}

// runtimeSockets matches the fake runtime's sockets
// (k8s.io/cri-client/pkg/fake: unix:///tmp/kubelet_remote_%v.sock).
const runtimeSockets = "/tmp/kubelet_remote_*.sock"

// sweepRuntimeSockets removes the fake runtime sockets nobody listens on:
// kubemark exits on SIGTERM without closing its listener, and a killed
// one cannot.
func sweepRuntimeSockets() {
	paths, _ := filepath.Glob(runtimeSockets)
	for _, p := range paths {
		c, err := net.DialTimeout("unix", p, time.Second)
		if err == nil {
			_ = c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) || strings.Contains(err.Error(), "connection refused") {
			_ = os.Remove(p)
		}
	}
}
