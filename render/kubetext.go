package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/render/table"
	"github.com/etcdlab/etcdlab/result"
)

// kubeText is the block bench kube prints after each run's etcd benchmark
// summary: time to every pod Ready and its milestones, what the model put
// outside etcd, the requests per verb and resource (kube-apiserver's
// etcd_request_duration_seconds), watch lag, the components' client limits
// and Kubernetes' API SLOs. Empty for a run of another workload.
func kubeText(run result.Run, cfg *result.KubeConfig) string {
	k := run.Kube
	if k == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nKubernetes workload")
	if cfg != nil {
		fmt.Fprintf(&b, " (%s: %d deployments × %d replicas", k.Mode, cfg.Deployments, cfg.Replicas)
		if cfg.Services {
			fmt.Fprintf(&b, ", %d services", cfg.Deployments)
		}
		fmt.Fprintf(&b, ", %d nodes)", cfg.Nodes)
	}
	b.WriteString(":\n")
	if k.ControlPlane != "" {
		fmt.Fprintf(&b, "  control plane: %s\n", k.ControlPlane)
	}
	switch {
	case k.Mode == "steady":
	case k.PodsReady < k.Pods:
		fmt.Fprintf(&b, "  not every pod became Ready: %d of %d\n", k.PodsReady, k.Pods)
	default:
		fmt.Fprintf(&b, "  time to every pod Ready: %s (%d pods)\n", secs3(k.TimeToReadySeconds), k.Pods)
	}
	if len(k.Milestones) > 0 {
		parts := make([]string, len(k.Milestones))
		for i, m := range k.Milestones {
			parts[i] = m.Name + " " + secs3(m.Seconds)
		}
		TerminalOptions{}.prose(&b, "  milestones from the first create: ", strings.Join(parts, ", "), "    ")
	}
	if k.NotEtcdSeconds > 0 {
		fmt.Fprintf(&b, "  of which outside etcd by the model's parameters (image pull, container start): %s\n", secs3(k.NotEtcdSeconds))
	}
	if k.Objects > 0 || k.Conflicts > 0 {
		fmt.Fprintf(&b, "  %s keys under /registry; %s optimistic updates lost and retried\n", humanize.Comma(k.Objects), humanize.Comma(k.Conflicts))
	}
	if k.WatchLag != nil {
		fmt.Fprintf(&b, "  watch lag (a write's response to its event, at every watcher): p50 %s, p99 %s, max %s; %s events\n",
			units.Seconds(k.WatchLag.P50), units.Seconds(k.WatchLag.P99), units.Seconds(k.WatchLag.Max), humanize.Comma(k.WatchEvents))
	}
	storage := "  the same as kube-apiserver's etcd_requests_total counts them (a binding or status patch is an update of pods):\n"
	if k.ControlPlane != "" {
		storage = "  etcd requests as the apiservers' etcd_requests_total counted them, with the mean of etcd_request_duration_seconds:\n"
	}
	for _, t := range []struct {
		title string
		t     Table
	}{
		{"  etcd requests by verb and resource:\n", kubeRequests(run)},
		{storage, kubeEtcdRequests(k)},
		{"  components (client-side limits as run; where each default comes from: -o json or the HTML report):\n", kubeComponentsBrief(k)},
		{"  Kubernetes API SLOs (kubernetes/community sig-scalability/slos/slos.md), on etcd's part of each call:\n", kubeSLOs(k)},
	} {
		if len(t.t.Rows) > 0 {
			b.WriteString(t.title)
			_ = table.WriteWrapped(&b, t.t.Header, t.t.Rows, TermWidth)
		}
	}
	return b.String()
}

// kubeIterations says the time to Ready across a kube run's iterations:
// mean ± sample stddev, as the field report gives it. Empty unless two or
// more iterations reached every pod Ready.
func kubeIterations(doc *result.Document) string {
	var vals []float64
	for _, r := range doc.Runs {
		if r.Kube != nil && r.Kube.TimeToReadySeconds > 0 {
			vals = append(vals, r.Kube.TimeToReadySeconds)
		}
	}
	if len(vals) < 2 {
		return ""
	}
	m := result.MeanSDOf(vals)
	return fmt.Sprintf("\ntime to every pod Ready over %d iterations: %s ± %s\n", len(vals), secs3(m.Mean), secs3(m.Stddev))
}

// secs3 renders seconds with three significant digits and a unit.
func secs3(s float64) string {
	if s < 1 {
		return units.Seconds(s)
	}
	return fmt.Sprintf("%.3g s", s)
}

// kubeRequests is a kube run's requests per verb and resource as the
// emulation recorded them; none for a real control plane, whose requests
// are only its apiservers' metric (kubeEtcdRequests).
func kubeRequests(run result.Run) Table {
	if k := run.Kube; k != nil && k.ControlPlane != "" {
		return Table{}
	}
	t := Table{Header: []string{"REQUEST", "COUNT", "ERRORS", "P50", "P99", "MAX"}}
	for _, o := range run.Ops {
		t.Rows = append(t.Rows, []string{o.Name, humanize.Comma(o.Requests), humanize.Comma(o.ErrorCount()), units.Seconds(o.Latency.P50), units.Seconds(o.Latency.P99), units.Seconds(o.Latency.Max)})
	}
	return t
}

// kubeEtcdRequests is a kube run's storage requests by
// etcd_requests_total's operation and resource, highest first.
// A real control plane's have their mean latency.
func kubeEtcdRequests(k *result.KubeRun) Table {
	real := k.ControlPlane != ""
	t := Table{Header: []string{"OPERATION", "RESOURCE", "COUNT"}}
	if real {
		t.Header = append(t.Header, "MEAN")
	}
	rows := slices.Clone(k.EtcdRequests)
	slices.SortStableFunc(rows, func(a, b result.KubeEtcdRequests) int { return cmp.Compare(b.Requests, a.Requests) })
	for _, e := range rows {
		row := []string{e.Operation, e.Resource, humanize.Comma(e.Requests)}
		if real {
			row = append(row, units.Seconds(e.MeanSeconds))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// kubeComponents is a kube run's emulated components and their limits.
func kubeComponents(k *result.KubeRun) Table {
	t := Table{Header: []string{"COMPONENT", "QPS", "BURST", "WORKERS", "REQUESTS", "THROTTLED", "DEFAULTS FROM"}}
	for _, c := range k.Components {
		workers := "-"
		if c.Workers > 0 {
			workers = fmt.Sprint(c.Workers)
		}
		t.Rows = append(t.Rows, []string{c.Name, fmt.Sprintf("%g", c.QPS), fmt.Sprint(c.Burst), workers, humanize.Comma(c.Requests), secs3(c.ThrottledSeconds), c.Source})
	}
	return t
}

// kubeComponentsBrief is kubeComponents without the sources, for the
// terminal.
func kubeComponentsBrief(k *result.KubeRun) Table {
	t := kubeComponents(k)
	t.Header = t.Header[:len(t.Header)-1]
	for i, r := range t.Rows {
		t.Rows[i] = r[:len(r)-1]
	}
	return t
}

// kubeSLOs is a kube run's SLO verdicts.
func kubeSLOs(k *result.KubeRun) Table {
	t := Table{Header: []string{"SLO", "WORST", "P99", "TARGET", "RESULT"}}
	for _, s := range k.SLOs {
		res := "PASS"
		if !s.Passed {
			res = "FAIL"
		}
		t.Rows = append(t.Rows, []string{s.Name, s.Worst, units.Seconds(s.P99), "≤ " + units.Seconds(s.Threshold), res})
	}
	return t
}

// kubeTables are a bench kube result's tables for the HTML report: per
// run, its outcome, requests, components and SLOs.
func kubeTables(doc *result.Document) []namedTable {
	var out []namedTable
	for _, run := range doc.Runs {
		k := run.Kube
		if k == nil {
			continue
		}
		sum := Table{Header: []string{"figure", "value"}}
		if k.Mode != "steady" {
			ready := fmt.Sprintf("not every pod became Ready: %d of %d", k.PodsReady, k.Pods)
			if k.Pods > 0 && k.PodsReady == k.Pods {
				ready = fmt.Sprintf("%s (%d pods)", secs3(k.TimeToReadySeconds), k.Pods)
			}
			sum.Rows = append(sum.Rows, []string{"time to every pod Ready", ready})
		}
		for _, m := range k.Milestones {
			sum.Rows = append(sum.Rows, []string{m.Name + " (from the first create)", secs3(m.Seconds)})
		}
		if k.NotEtcdSeconds > 0 {
			sum.Rows = append(sum.Rows, []string{"outside etcd by the model's parameters", secs3(k.NotEtcdSeconds)})
		}
		sum.Rows = append(sum.Rows, []string{"keys under /registry", humanize.Comma(k.Objects)}, []string{"optimistic updates lost and retried", humanize.Comma(k.Conflicts)})
		if k.WatchLag != nil {
			sum.Rows = append(sum.Rows, []string{"watch lag p50 / p99 / max", fmt.Sprintf("%s / %s / %s over %s events", units.Seconds(k.WatchLag.P50), units.Seconds(k.WatchLag.P99), units.Seconds(k.WatchLag.Max), humanize.Comma(k.WatchEvents))})
		}
		out = append(out, namedTable{"Kubernetes workload: " + run.Name, sum})
		for _, t := range []namedTable{{"requests by verb and resource", kubeRequests(run)},
			{"storage requests as etcd_requests_total counts them", kubeEtcdRequests(k)}, {"components", kubeComponents(k)}, {"Kubernetes API SLOs", kubeSLOs(k)}} {
			if len(t.Rows) > 0 {
				t.Title = run.Name + ": " + t.Title
				out = append(out, t)
			}
		}
	}
	return out
}
