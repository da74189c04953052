package render

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/result"
)

// kubeFixture is a bench kube result of two iterations, the second with
// pods that never became Ready.
func kubeFixture() *result.Document {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	op := func(name string, n int64, p50, p99 float64) result.Op {
		return result.Op{Name: name, Stats: result.Stats{Requests: n, Errors: map[string]int64{}, Latency: result.Latency{P50: p50, P99: p99, Max: p99 * 2}}}
	}
	run := func(it int, ready int, ttr float64) result.Run {
		return result.Run{Name: "kube iteration=" + string(rune('0'+it)), Conns: 1, Iteration: it, Start: start, End: start.Add(time.Minute),
			Stats: result.Stats{Requests: 4000, Errors: map[string]int64{}, DurationSeconds: 60, ThroughputRPS: 66.7, Latency: result.Latency{P50: 0.004, P99: 0.02, Max: 0.05}},
			Ops:   []result.Op{op("create pods", 500, 0.005, 0.012), op("update pods/status", 1500, 0.004, 0.011), op("list pods", 3, 0.02, 0.03)},
			Kube: &result.KubeRun{Mode: "manifest", TimeToReadySeconds: ttr, Pods: 500, PodsReady: ready,
				Milestones: []result.KubeMilestone{{Name: "pods created", Seconds: 25.2}, {Name: "pods ready", Seconds: ttr}},
				Objects:    1031, Conflicts: 7, WatchLag: &result.Latency{P50: 0.0008, P99: 0.004, Max: 0.01}, WatchEvents: 12000,
				Components:   []result.KubeComponent{{Name: "replicaset-controller", QPS: 20, Burst: 30, Workers: 5, Source: "kube-controller-manager --kube-api-qps/--kube-api-burst", Requests: 1000, ThrottledSeconds: 24.1}},
				SLOs:         []result.KubeSLO{{Name: "mutating API calls p99 per resource and verb", Worst: "update pods/status", P99: 0.011, Threshold: 1, Passed: true, Source: "slos.md"}},
				EtcdRequests: []result.KubeEtcdRequests{{Operation: "create", Resource: "pods", Requests: 500}, {Operation: "update", Resource: "pods", Requests: 2000}}}}
	}
	r2 := run(2, 480, 0)
	r2.Kube.Milestones = r2.Kube.Milestones[:1] // its pods never all became Ready
	return &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindBench, CreatedAt: start,
		Bench: &result.BenchConfig{Command: "kube", Conns: []int{1}, Clients: []int{1}, Iterations: 2, Mode: "closed",
			Kube: &result.KubeConfig{Mode: "manifest", Deployments: 10, Replicas: 50, Services: true, Namespace: "default", Nodes: 6, PodsPerNode: 110}},
		Runs: []result.Run{run(1, 500, 41.5), r2}}
}

func TestKubeTextGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := BenchText(&b, kubeFixture(), TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"Kubernetes workload (manifest: 10 deployments × 50 replicas, 10 services, 6 nodes):",
		"time to every pod Ready: 41.5 s (500 pods)",
		"not every pod became Ready: 480 of 500",
		"| update pods/status | 1,500 |",
		"| update    | pods     | 2,000 |",
		"watch lag (a write's response to its event, at every watcher): p50 800.0 µs",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q", w)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > TermWidth {
			t.Errorf("line of %d columns: %s", n, l)
		}
	}
	golden(t, "kube.txt", b.Bytes())
}

// TestKubeHTML: the HTML report of a bench kube result carries its
// outcome, requests, components and SLOs per run.
func TestKubeHTML(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	docs := []result.Named{{Name: "kube.json", Doc: kubeFixture()}}
	if err := HTML(&b, docs, judgedNamed(docs)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"Kubernetes workload: kube iteration=1", "41.5 s (500 pods)", "not every pod became Ready: 480 of 500",
		"kube iteration=1: requests by verb and resource", "update pods/status", "replicaset-controller", "mutating API calls p99 per resource and verb"} {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q", w)
		}
	}
}

// TestPublishedGrowth: the article's growth from its first scenario to
// each later one beside ours, for a time it gives per setup, as seconds
// added; a total time the article measured over another number of
// requests is not compared.
func TestPublishedGrowth(t *testing.T) {
	t.Parallel()
	k := kubeFixture()
	cell := func(setup string, ttr float64) result.Cell {
		runs := []result.Run{k.Runs[0]}
		kr := *runs[0].Kube
		kr.TimeToReadySeconds = ttr
		runs[0].Kube = &kr
		return result.Cell{ID: setup + "/kube", Setup: setup, Workload: "kube", Status: result.CellOK, Params: map[string]string{"setup": setup, "workload": "kube"},
			Runs: runs, Summaries: []result.Summary{{Name: "kube", Iterations: 1}}}
	}
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Environment: result.Environment{CPUs: 2},
		Experiment: &result.Experiment{Name: "mc", Cells: []result.Cell{cell("multicloud-0", 25), cell("multicloud-3", 26)},
			Published: []result.Published{
				{Match: map[string]string{"setup": "multicloud-0", "workload": "kube"}, Metric: "time_to_ready_seconds", Value: 66.1},
				{Match: map[string]string{"setup": "multicloud-3", "workload": "kube"}, Metric: "time_to_ready_seconds", Value: 128.9},
				{Match: map[string]string{"setup": "multicloud-0", "workload": "kube"}, Metric: "total_seconds", Value: 50.9, Requests: 10000},
			}}}
	var b bytes.Buffer
	if err := ExperimentText(&b, doc, TerminalOptions{Wide: true}, judgedFor(doc)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "| multicloud-3 − multicloud-0 | time to every pod Ready (seconds added) | +62.8 s") || !strings.Contains(out, "| +1.0 s ") {
		t.Errorf("no seconds-added row:\n%s", out)
	}
	if !strings.Contains(out, "requests per run, the article's 10,000)") {
		t.Errorf("a total time over another number of requests compared:\n%s", out)
	}
}
