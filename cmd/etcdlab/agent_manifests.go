package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/etcdlab/etcdlab/internal/exitcode"
	"github.com/etcdlab/etcdlab/measure/agents"
	"github.com/etcdlab/etcdlab/measure/bench"
	"github.com/spf13/cobra"
)

// manifestsOptions are `etcdlab agent manifests`'s flags.
type manifestsOptions struct {
	agents.ManifestOptions
}

func (a *app) manifestsCmd() *cobra.Command {
	o := &manifestsOptions{}
	c := &cobra.Command{
		Use:   "manifests --agents N --image IMAGE [flags] -- BENCH-ARGS...",
		Short: "Write the Kubernetes Indexed Job (and its ConfigMap) that runs a bench load as N agents",
		Long: `Writes, for kubectl apply -f, a ServiceAccount without API access (the agents
talk to etcd only: no RBAC), a ConfigMap holding the bench command line, and
an Indexed Job of N pods, each running 'etcdlab agent' on its slice. The
command line is checked as bench would check it; --agents and, unless given,
--prefix (/etcdlab/bench/NAME/) are added, and with --tls-secret the TLS
flags pointing at the mounted Secret. Then:

  kubectl apply -f job.yaml
  kubectl wait --for=condition=complete job/NAME --timeout=30m
  kubectl logs -l batch.kubernetes.io/job-name=NAME --tail=-1 --max-log-requests=64 | etcdlab merge -`,
		Example: `  etcdlab agent manifests --agents 4 --image registry.example/etcdlab:v1 --tls-secret etcd-client -- \
      --endpoints=https://10.0.0.11:2379,https://10.0.0.12:2379,https://10.0.0.13:2379 \
      --conns=8 --clients=400 put --rate=8000 --duration=60s > job.yaml`,
		RunE:        func(_ *cobra.Command, argv []string) error { return a.runManifests(o, argv) },
		Annotations: map[string]string{benchLine: "true"},
	}
	for field, flag := range bench.FlagNames() {
		c.Annotations["param:"+field] = flag
	}
	fl := c.Flags()
	fl.IntVar(&o.Agents, "agents", 0, "number of agents (pods)")
	fl.StringVar(&o.Image, "image", "", "etcdlab's container image (docs/container.md builds it)")
	fl.StringVar(&o.Name, "name", "etcdlab-bench", "the Job's name")
	fl.StringVar(&o.Namespace, "namespace", "", "namespace of the objects (default: kubectl's)")
	fl.StringVar(&o.TLSSecret, "tls-secret", "", "Secret with ca.crt, tls.crt and tls.key for etcd's client TLS")
	fl.StringVar(&o.CPU, "cpu", "1", "each pod's CPU request")
	fl.StringVar(&o.Memory, "memory", "512Mi", "each pod's memory request and limit")
	return c
}

func (a *app) runManifests(o *manifestsOptions, argv []string) error {
	if o.Agents < 2 {
		return exitcode.Usagef("--agents must be at least 2, not %d", o.Agents)
	}
	if o.Image == "" {
		return exitcode.Usagef("--image is required: etcdlab's container image")
	}
	if len(argv) == 0 {
		return exitcode.Usagef("no bench command line after --")
	}
	args := slices.Clone(argv)
	for flag, own := range map[string]string{"agents": "--agents", "cacert": "--tls-secret", "cert": "--tls-secret", "key": "--tls-secret"} {
		if hasFlag(args, flag) {
			return exitcode.Usagef("give %s to manifests' own flags, not --%s in the bench command line", own, flag)
		}
	}
	args = append(args, fmt.Sprintf("--agents=%d", o.Agents))
	if !hasFlag(args, "prefix") {
		args = append(args, "--prefix=/etcdlab/bench/"+o.Name+"/")
	}
	if o.TLSSecret != "" {
		args = append(args, "--cacert="+agents.TLSDir+"/ca.crt", "--cert="+agents.TLSDir+"/tls.crt", "--key="+agents.TLSDir+"/tls.key")
	}
	cl, err := bench.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(cl.Config.Conn.Endpoints) == 0 {
		return exitcode.Usagef("the bench command line needs --endpoints: the pods load a cluster they can reach")
	}
	o.Args = args
	return agents.WriteManifests(a.stdout, o.ManifestOptions)
}

// hasFlag reports whether args give --name (as --name=v or --name v).
func hasFlag(args []string, name string) bool {
	for _, s := range args {
		if s == "--" {
			return false
		}
		if s == "--"+name || strings.HasPrefix(s, "--"+name+"=") {
			return true
		}
	}
	return false
}
