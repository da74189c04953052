package render

import (
	"fmt"
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
	if len(run.Ops) > 0 {
		rows := make([][]string, 0, len(run.Ops))
		for _, o := range run.Ops {
			rows = append(rows, []string{o.Name, humanize.Comma(o.Requests), humanize.Comma(o.ErrorCount()), units.Seconds(o.Latency.P50), units.Seconds(o.Latency.P99), units.Seconds(o.Latency.Max)})
		}
		b.WriteString("  etcd requests by verb and resource:\n")
		_ = table.WriteWrapped(&b, []string{"REQUEST", "COUNT", "ERRORS", "P50", "P99", "MAX"}, rows, TermWidth)
	}
	if len(k.Components) > 0 {
		rows := make([][]string, 0, len(k.Components))
		for _, c := range k.Components {
			workers := "-"
			if c.Workers > 0 {
				workers = fmt.Sprint(c.Workers)
			}
			rows = append(rows, []string{c.Name, fmt.Sprintf("%g", c.QPS), fmt.Sprint(c.Burst), workers, humanize.Comma(c.Requests), secs3(c.ThrottledSeconds), c.Source})
		}
		b.WriteString("  components (client-side limits as run):\n")
		_ = table.WriteWrapped(&b, []string{"COMPONENT", "QPS", "BURST", "WORKERS", "REQUESTS", "THROTTLED", "DEFAULTS FROM"}, rows, TermWidth)
	}
	if len(k.SLOs) > 0 {
		rows := make([][]string, 0, len(k.SLOs))
		for _, s := range k.SLOs {
			res := "PASS"
			if !s.Passed {
				res = "FAIL"
			}
			rows = append(rows, []string{s.Name, s.Worst, units.Seconds(s.P99), "≤ " + units.Seconds(s.Threshold), res})
		}
		b.WriteString("  Kubernetes API SLOs (kubernetes/community sig-scalability/slos/slos.md), on etcd's part of each call:\n")
		_ = table.WriteWrapped(&b, []string{"SLO", "WORST", "P99", "TARGET", "RESULT"}, rows, TermWidth)
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
