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

// commands are the components' command lines, in start order. Everything
// not set here keeps that release's default (the storage settings
// included: /registry prefix, protobuf, compaction every 5 minutes), so
// that what etcd sees is what a default control plane sends.
func commands(o Options, c *credentials, port int) []command {
	api := []string{
		"--etcd-servers=" + strings.Join(o.Etcd.Endpoints, ","),
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
	return []command{
		{apiserverName, o.Binaries.APIServer, api},
		{kcmName, o.Binaries.ControllerManager, kcm},
		{schedulerName, o.Binaries.Scheduler, sched},
	}
}
