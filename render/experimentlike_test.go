package render

import (
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/result"
)

// builtinPublished reads a built-in experiment file's published figures,
// as the product ships them.
func builtinPublished(t *testing.T, name string) []result.Published {
	t.Helper()
	raw, err := os.ReadFile("../measure/experiment/builtin/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Published []struct {
			Match    map[string]string `yaml:"match"`
			Metric   string            `yaml:"metric"`
			Value    float64           `yaml:"value"`
			Note     string            `yaml:"note"`
			Requests int64             `yaml:"requests"`
			Series   string            `yaml:"series"`
		} `yaml:"published"`
	}
	if err := yaml.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var out []result.Published
	for _, p := range f.Published {
		out = append(out, result.Published{Match: p.Match, Metric: p.Metric, Value: p.Value, Note: p.Note, Requests: p.Requests, Series: p.Series})
	}
	return out
}

// multicloudBoth is the multi-cloud experiment's eight cells (the put and
// the Kubernetes workload in four scenarios), with the figures the
// built-in publishes.
func multicloudBoth(t *testing.T) *result.Document {
	doc := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, CreatedAt: fixtureStart, Environment: machine()}
	e := &result.Experiment{Name: "multicloud", Title: "etcd across clouds", Source: "field report 000", Profile: "quick", Spec: "name: multicloud\n"}
	for i, sc := range []struct{ rps, p50, rtt float64 }{{220, 0.0043, 0.0019}, {102, 0.0096, 0.0024}, {45, 0.022, 0.0079}, {15, 0.065, 0.027}} {
		setup := "multicloud-" + strconv.Itoa(i)
		start := fixtureStart.Add(time.Duration(2*i) * time.Minute)
		put := runSpec{name: setup + "/put", start: start, secs: 10, clients: 1, conns: 1, iteration: 1, rps: sc.rps, p50: sc.p50,
			cpu: 0.05, fsyncP50: 0.001, fsyncP99: 0.001, fsyncsPerSec: sc.rps, rtt: sc.rtt}.run()
		kube := runSpec{name: setup + "/kube", start: start.Add(time.Minute), secs: 25, clients: 1, conns: 1, iteration: 1, rps: 160, p50: 0.002 + sc.rtt,
			cpu: 0.2, fsyncP50: 0.001, fsyncP99: 0.002, fsyncsPerSec: 100, rtt: sc.rtt, slowApplies: float64(i)}.run()
		kube.Kube = &result.KubeRun{Mode: "manifest", TimeToReadySeconds: 25 + float64(i)/4, Pods: 500, PodsReady: 500}
		e.Cells = append(e.Cells,
			benchCell(setup+"/put", setup, "put", map[string]string{}, machine(), put),
			benchCell(setup+"/kube", setup, "kube", map[string]string{}, machine(), kube))
	}
	e.Published = builtinPublished(t, "multicloud")
	doc.Experiment = e
	return doc
}

// tableRows are the rows of the terminal report's table under title
// (the article's figures: cell, metric, the article's, ours).
func tableRows(t *testing.T, out, title string) [][]string {
	t.Helper()
	_, after, ok := strings.Cut(out, title+"\n")
	if !ok {
		t.Fatalf("no table %q:\n%s", title, out)
	}
	var rows [][]string
	for _, l := range strings.Split(after, "\n") {
		if strings.HasPrefix(l, "+") {
			continue // a border
		}
		if !strings.HasPrefix(l, "|") {
			break
		}
		var cols []string
		for _, c := range strings.Split(strings.Trim(l, "|"), "|") {
			cols = append(cols, strings.TrimSpace(c))
		}
		if len(cols) < 4 || cols[0] == "CELL" || strings.Trim(cols[0], "-") == "" {
			continue
		}
		rows = append(rows, cols)
	}
	return rows
}

// TestMulticloudLikeWithLike renders the multi-cloud experiment's report
// with the figures the built-in publishes and reads its table of the
// article's figures beside ours: every figure the article read off a
// histogram's bucket labels (its round-trip and KubeAPI ranges) stands
// beside a bucket label of ours, never beside a percentile; every count
// the article gives for one member (its slow applies) beside one
// member's count, never beside a sum over members and runs.
func TestMulticloudLikeWithLike(t *testing.T) {
	t.Parallel()
	doc := multicloudBoth(t)
	var b bytes.Buffer
	if err := ExperimentText(&b, doc, TerminalOptions{Wide: true}, judgedFor(doc)); err != nil {
		t.Fatal(err)
	}
	// The article's figures by what they are, from the seed text (000):
	// its dashboards' bucket labels and its per-member counts.
	buckets := map[string]bool{}
	for _, v := range []float64{0.0032, 0.0128, 0.0256, 0.0512, 0.1024, 0.2048, 0.005, 0.025, 0.25} {
		buckets[units.Seconds(v)] = true
	}
	oneMember := map[string]bool{"0": true, "600": true, "1,200": true, "60,000": true, "140,000": true}
	forms := map[string]result.Form{}
	for _, m := range result.Metrics() {
		forms[m.What] = m.Form
	}
	var nBucket, nMember int
	for _, r := range tableRows(t, b.String(), "the article's figures beside ours:") {
		cell, metric, article := r[0], r[1], r[2]
		form, known := forms[metric]
		if !known {
			continue // a growth row ("(seconds added)"): a time against a time
		}
		switch {
		case buckets[article]:
			nBucket++
			if form != result.FormBucket {
				t.Errorf("%s: the article's bucket label %s beside %q, not a bucket of ours", cell, article, metric)
			}
		case oneMember[article] && strings.Contains(metric, "slow applies"):
			nMember++
			if form != result.FormOneMember {
				t.Errorf("%s: the article's count on one member (%s) beside %q, not one member's count", cell, article, metric)
			}
		}
		if form == result.FormBucket && !buckets[article] {
			t.Errorf("%s: our bucket label (%s) beside the article's %s, which is not a bucket label", cell, metric, article)
		}
		if form == result.FormMemberSum {
			t.Errorf("%s: a sum over members and runs (%s) beside the article's %s", cell, metric, article)
		}
		if form == result.FormBucket && !strings.Contains(r[3], "bucket") {
			t.Errorf("%s: %s compared as %q, not in buckets", cell, metric, r[3])
		}
	}
	// put and kube cells of 4 scenarios × lowest and highest round-trip
	// bucket, and 4 × the KubeAPI range's two ends; 4 slow-apply counts.
	if nBucket != 24 || nMember != 4 {
		t.Errorf("%d bucket rows (want 24) and %d one-member rows (want 4):\n%s", nBucket, nMember, b.String())
	}
	// Each member's buckets, beside the article's range for its cell: the
	// fixture's members observe their round trip (27 ms in scenario 3) and
	// three of it (the stream prober's handshakes).
	rows := tableRows(t, b.String(), "peer round trips per member, in etcd's histogram buckets:")
	if len(rows) != 24 {
		t.Errorf("%d rows of members' buckets, want 8 cells × 3 members", len(rows))
	}
	want := []string{"multicloud-3/kube", "m2", units.Seconds(0.0512), units.Seconds(0.1024), units.Seconds(0.0512) + " – " + units.Seconds(0.2048)}
	if !slices.ContainsFunc(rows, func(r []string) bool { return slices.Equal(r, want) }) {
		t.Errorf("no row %q in %q", want, rows)
	}
}
