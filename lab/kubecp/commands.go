package kubecp

import (
	"fmt"
	"strings"
)

// The service network: the apiserver's ClusterIP service range and the
// address of the kubernetes service in it.
const (
	serviceRange = "10.96.0.0/16"
	serviceIP    = "10.96.0.1"
)

// Component names, as their logs are named.
const (
	apiserverName = "kube-apiserver"
	kcmName       = "kube-controller-manager"
	schedulerName = "kube-scheduler"
)

// command is one component's command line.
type command struct {
	name, path string
	args       []string
}

// apiserverEtcd is the --etcd-servers of apiserver i of n: every endpoint
// for a lone apiserver; else one member each, in turn, as on stacked
// control-plane nodes (kubeadm's and KubeOne's: each apiserver talks to
// its own node's member).
func apiserverEtcd(endpoints []string, i, n int) string {
	if n == 1 {
		return strings.Join(endpoints, ",")
	}
	return endpoints[i%len(endpoints)]
}

// apiserverLog is apiserver i's component name (its log's name).
func apiserverLog(i, n int) string {
	if n == 1 {
		return apiserverName
	}
	return fmt.Sprintf("%s-%d", apiserverName, i)
}

// commands are the components' command lines, in start order: the
// apiservers (one per port), then the controller manager and the scheduler,
// which talk to the first apiserver. Everything not set here keeps that
// release's default (the storage settings included: /registry prefix,
// protobuf, compaction every 5 minutes), so that what etcd sees is what a
// default control plane sends.
func commands(o Options, c *credentials, ports []int) []command {
	var cmds []command
	for i, port := range ports {
		cmds = append(cmds, command{apiserverLog(i, len(ports)), o.Binaries.APIServer, apiserverArgs(o, c, apiserverEtcd(o.Etcd.Endpoints, i, len(ports)), port)})
	}
	kcm := []string{
		"--kubeconfig=" + c.kubeconfigPath(kcmUser),
		"--authentication-kubeconfig=" + c.kubeconfigPath(kcmUser),
		"--authorization-kubeconfig=" + c.kubeconfigPath(kcmUser),
		"--secure-port=0",
		"--leader-elect=true",
		// Each controller acts as its own service account (as kubeadm
		// sets it up): system:kube-controller-manager itself may only
		// fetch their tokens.
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + c.saKey,
		"--root-ca-file=" + c.ca,
		"--profiling=false",
	}
	sched := []string{
		"--kubeconfig=" + c.kubeconfigPath(schedulerUser),
		"--authentication-kubeconfig=" + c.kubeconfigPath(schedulerUser),
		"--authorization-kubeconfig=" + c.kubeconfigPath(schedulerUser),
		"--secure-port=0",
		"--leader-elect=true",
	}
	return append(cmds,
		command{kcmName, o.Binaries.ControllerManager, kcm},
		command{schedulerName, o.Binaries.Scheduler, sched})
}

// apiserverArgs is one apiserver's command line.
func apiserverArgs(o Options, c *credentials, etcdServers string, port int) []string {
	api := []string{
		"--etcd-servers=" + etcdServers,
		"--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--tls-cert-file=" + c.serverCert,
		"--tls-private-key-file=" + c.serverKy,
		"--client-ca-file=" + c.ca,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + c.saPub,
		"--service-account-signing-key-file=" + c.saKey,
		"--service-cluster-ip-range=" + serviceRange,
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--profiling=false",
	}
	if o.Etcd.CACert != "" {
		api = append(api, "--etcd-cafile="+o.Etcd.CACert)
	}
	if o.Etcd.Cert != "" {
		api = append(api, "--etcd-certfile="+o.Etcd.Cert, "--etcd-keyfile="+o.Etcd.Key)
	}
	return api
}
