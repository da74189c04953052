package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/atomicfile"
	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/load/replay"
	"github.com/etcdlab/etcdlab/load/sizing"
	"github.com/etcdlab/etcdlab/measure/jobs"
	"github.com/etcdlab/etcdlab/measure/size"
	"github.com/etcdlab/etcdlab/observe/envinfo"
	"github.com/etcdlab/etcdlab/render"
	"github.com/etcdlab/etcdlab/result"
	"github.com/spf13/cobra"
)

// sizeOptions are the flags of `etcdlab size`.
type sizeOptions struct {
	cluster     sizing.Cluster
	objectBytes []string
	profile     string
	scale       float64
	quota       string
	members     []int
	cpus        []float64
	disks       []string
	rtts        []time.Duration
	versions    []string
	quick       bool
	rttBudget   bool
	labCores    float64
	labScale    float64
	loadCores   float64
	probeTime   time.Duration
	dataDir     string
	out         string
	output      string
}

func (a *app) sizeCmd() *cobra.Command {
	var o sizeOptions
	c := &cobra.Command{
		Use:   "size",
		Short: "What etcd needs for a Kubernetes cluster: cores, disk and round-trip budget, measured",
		Long: `Turns a Kubernetes cluster's size (--nodes, --pods, churn, object sizes; a
documented model with a source for every rate, docs/sizing.md) or a live
cluster's profile (--profile, from etcdlab profile, times --scale) into etcd
load, and plays it on each candidate cluster (--members × --cpus × --disk ×
--rtt × --etcd) in the lab: the knee is found by a search (the target, then
doubling, then bisection) against the SLOs with their sources (mutating p99
≤ 1 s, WAL fsync p99 < 10 ms, backend commit p99 < 25 ms, no leader change, no
slow applies, the database below 80% of the quota). A candidate bigger than
this machine runs scaled down: its load and its members' CPU (beyond their
idle share) times the same factor. The answer: per candidate, holds or
breaks (at what size, which SLO first and why), the headroom at the target
(OpenShift's 60% rule), the round-trip budget beside OpenShift's rule, and
the smallest candidate that holds, beside etcd's hardware guide and
OpenShift's sizing. Needs root (CPU budgets, emulated round trips).`,
		Example: `  etcdlab size --nodes 1000 --pods 30000 --quick
  etcdlab size --nodes 250 --pods 7500 --churn 20 --cpus 2,4 --disk disk,ebs-001 --members 3,5
  etcdlab size --profile prod.yaml --scale 3 --cpus 4,8 --out sizing/`,
		Args: noArgs,
		Annotations: map[string]string{"param:Nodes": "--nodes", "param:Pods": "--pods", "param:Namespaces": "--namespaces",
			"param:Services": "--services", "param:Deployments": "--deployments", "param:APIServers": "--apiservers",
			"param:WatchersPerAPIServer": "--watchers", "param:Churn": "--churn", "param:Profile": "--profile",
			"param:Members": "--members", "param:CPUs": "--cpus", "param:RTT": "--rtt", "param:ProbeTime": "--probe-time",
			"param:LabCores": "--lab-cores", "param:Scale": "--lab-scale", "param:Jobs": "the job registry"},
		RunE: func(c *cobra.Command, _ []string) error { return a.runSize(c, &o) },
	}
	fl := c.Flags()
	fl.SortFlags = false
	fl.IntVar(&o.cluster.Nodes, "nodes", 0, "Kubernetes nodes to plan for")
	fl.IntVar(&o.cluster.Pods, "pods", 0, "pods to plan for")
	fl.IntVar(&o.cluster.Namespaces, "namespaces", 0, "namespaces (default: from the model, docs/sizing.md)")
	fl.IntVar(&o.cluster.Services, "services", 0, "services (default: from the model)")
	fl.IntVar(&o.cluster.Deployments, "deployments", 0, "deployments (default: from the model)")
	fl.IntVar(&o.cluster.APIServers, "apiservers", 0, "kube-apiservers (default 3)")
	fl.IntVar(&o.cluster.WatchersPerAPIServer, "watchers", 0, "client watches per kube-apiserver (served from its watch cache, not etcd)")
	fl.Float64Var(&o.cluster.Churn, "churn", 0, "pods created (and as many deleted) per second (default: from the model)")
	fl.StringSliceVar(&o.objectBytes, "object-bytes", nil, "stored size per kind: Pod=15000,Node=12000 (default: from the model)")
	fl.BoolVar(&o.cluster.HollowKubelets, "hollow-kubelets", false, "kubemark's hollow kubelets instead of real ones (no events, one status write)")
	fl.StringVar(&o.profile, "profile", "", "size for a live cluster's profile (etcdlab profile) instead of --nodes/--pods")
	fl.Float64Var(&o.scale, "scale", 1, "with --profile: the cluster grown this many times (rates and keys)")
	fl.StringVar(&o.quota, "quota", "2GiB", "the members' --quota-backend-bytes the database is judged against (80%)")
	fl.IntSliceVar(&o.members, "members", []int{3}, "candidate member counts")
	fl.Float64SliceVar(&o.cpus, "cpus", []float64{2, 4, 8}, "candidate cores per member")
	fl.StringSliceVar(&o.disks, "disk", []string{size.DiskThis}, "candidate disks: disk (this data dir's), tmpfs, a preset (ebs-001, hdd, ssd-004) or a fitted delay (fit:p50=2ms,p99=6.4ms)")
	fl.DurationSliceVar(&o.rtts, "rtt", []time.Duration{0}, "candidate round trips between members")
	fl.StringSliceVar(&o.versions, "etcd", []string{""}, "candidate etcd versions (3.5.35, 3.6.16; default the etcd in etcdlab)")
	fl.BoolVar(&o.quick, "quick", false, "shorter probes and a coarser search (under 10 minutes for three candidates)")
	fl.BoolVar(&o.rttBudget, "rtt-budget", true, "search the round-trip budget on the chosen candidate")
	fl.Float64Var(&o.labCores, "lab-cores", 0, "the cores a probe's members get together (default 60% of this machine's, at most 1.2)")
	fl.Float64Var(&o.labScale, "lab-scale", 0, "run every candidate at this scale instead of the one that fits --lab-cores (1: direct; the direct check)")
	fl.Float64Var(&o.loadCores, "load-cpus", 0, "the load generator's CPU budget in cores (default 0.5)")
	fl.DurationVar(&o.probeTime, "probe-time", 0, "each probe's measured run (default 40s, quick 15s)")
	fl.StringVar(&o.dataDir, "data-dir", "", "where 'disk' candidates keep their data (default ./.etcdlab)")
	fl.StringVar(&o.out, "out", "", "also write result.json and report.html here")
	fl.StringVarP(&o.output, "output", "o", "text", "text, json or markdown")
	return c
}

// runSize checks every flag, then sizes.
func (a *app) runSize(c *cobra.Command, o *sizeOptions) error {
	if o.output != "text" && o.output != "json" && o.output != "markdown" {
		return invalid.Errorf("-o must be text, json or markdown, not %q", o.output)
	}
	if err := positiveIfGiven(c, "nodes", "pods", "namespaces", "services", "deployments", "apiservers", "probe-time", "lab-cores", "load-cpus"); err != nil {
		return err
	}
	quota, err := humanize.ParseBytes(o.quota)
	if err != nil || quota == 0 {
		return invalid.Errorf("--quota must be a size such as 8GiB, not %q", o.quota)
	}
	load, err := o.load(c, int64(quota))
	if err != nil {
		return err
	}
	so := size.Options{Load: load, Quick: o.quick, RTTBudget: o.rttBudget, ProbeTime: o.probeTime, LabCores: o.labCores, Scale: o.labScale,
		LoadCores: o.loadCores, DataDir: o.dataDir, Jobs: jobs.Registry(), Log: a.stderr}
	so.Candidates = o.candidates()
	if err := size.Check(so); err != nil {
		return err
	}
	s, runErr := size.Run(c.Context(), so)
	if s == nil {
		return runErr
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindSize, CreatedAt: time.Now().UTC(),
		Environment: envinfo.Collect(), Size: s}
	if err := a.writeSize(doc, o); err != nil {
		return err
	}
	return runErr
}

// load is the target's load from the flags: the model's or a profile's.
func (o *sizeOptions) load(c *cobra.Command, quota int64) (size.Load, error) {
	if o.profile != "" {
		for _, name := range []string{"nodes", "pods", "namespaces", "services", "deployments", "apiservers", "watchers", "churn", "object-bytes", "hollow-kubelets"} {
			if c.Flags().Changed(name) {
				return nil, invalid.Errorf("--%s and --profile do not go together: a profile carries its own load", name)
			}
		}
		if o.scale <= 0 {
			return nil, invalid.Errorf("--scale must be positive, not %g", o.scale)
		}
		p, err := replay.ReadFile(o.profile)
		if err != nil {
			return nil, err
		}
		return size.FromProfile(p, filepath.Base(o.profile), o.scale, quota)
	}
	if c.Flags().Changed("scale") {
		return nil, invalid.Errorf("--scale goes with --profile; with --nodes and --pods, give the size itself")
	}
	if !c.Flags().Changed("nodes") || !c.Flags().Changed("pods") {
		return nil, invalid.Errorf("give --nodes and --pods (the cluster to plan for), or --profile")
	}
	cl := o.cluster
	bytes, err := sizing.ParseObjectBytes(o.objectBytes)
	if err != nil {
		return nil, err
	}
	cl.Bytes = bytes
	return size.FromModel(cl, quota)
}

// candidates are every combination of the candidate flags.
func (o *sizeOptions) candidates() []size.Candidate {
	var out []size.Candidate
	for _, m := range o.members {
		for _, cpu := range o.cpus {
			for _, d := range o.disks {
				for _, r := range o.rtts {
					for _, v := range o.versions {
						out = append(out, size.Candidate{Members: m, CPUs: cpu, Disk: strings.TrimSpace(d), RTT: r, Version: strings.TrimSpace(v)})
					}
				}
			}
		}
	}
	return out
}

// writeSize prints the answer and writes the result files.
func (a *app) writeSize(doc *result.Document, o *sizeOptions) error {
	var err error
	switch o.output {
	case "json":
		err = result.Write(a.stdout, doc)
	case "markdown":
		err = render.SizeMarkdown(a.stdout, doc.Size)
	default:
		err = render.SizeText(a.stdout, doc.Size)
	}
	if err != nil || o.out == "" {
		return err
	}
	err = atomicfile.WriteDir(o.out,
		atomicfile.File{Name: "result.json", Perm: 0o666, Fill: func(w io.Writer) error { return result.Write(w, doc) }},
		atomicfile.File{Name: "report.html", Perm: 0o666, Fill: func(w io.Writer) error { return render.SizeHTML(w, doc.Size) }})
	if err != nil {
		return outError(o.out, err)
	}
	fmt.Fprintf(a.stderr, "wrote %s and %s\n", filepath.Join(o.out, "result.json"), filepath.Join(o.out, "report.html"))
	return nil
}
