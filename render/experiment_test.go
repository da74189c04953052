package render

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

// TestExperimentTextGolden: the terminal report of each kind of
// experiment, within 120 columns.
func TestExperimentTextGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		doc  *result.Document
	}{{"experiment_storage.txt", storageSweep()}, {"experiment_multicloud.txt", multicloud()}, {"experiment_leader_vs_all.txt", leaderVsAll(1)}} {
		var b bytes.Buffer
		if err := ExperimentText(&b, tt.doc, TerminalOptions{}, judgedFor(tt.doc)); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if n := utf8.RuneCountInString(l); n > TermWidth {
				t.Errorf("%s: line of %d columns: %s", tt.name, n, l)
			}
		}
		golden(t, tt.name, b.Bytes())
	}
	if err := ExperimentText(&bytes.Buffer{}, sweepFixture(t, 1), TerminalOptions{}, Judged{}); err == nil {
		t.Error("a bench result rendered as an experiment")
	}
}

// TestExperimentText checks what the terminal report must say, apart from
// its layout.
func TestExperimentText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	doc := storageSweep()
	if err := ExperimentText(&b, doc, TerminalOptions{Wide: true}, judgedFor(doc)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{
		"partial: interrupted: not every cell ran",
		"| tmpfs/put/clients=1000     | ok      | 7,296 ± 644.9 | 120.00 ms | 264.00 ms | 1.26      | ≤ 1.00 ms | fault      |",
		"| tmpfs/put/clients=10000    | ok      | 8,080 ± 113.1 | 1.100 s   | 2.420 s   | 1.47      | ≤ 1.00 ms | member-cpu |",
		"| slowdisk/put/clients=1000  | ok      | 2,323 ± 32.5  | 420.00 ms | 924.00 ms | 0.60      | 9.00 ms   | disk       |",
		"| slowdisk/disk              | ok      | -             | -         | -         | -         | -         | -          |",
		"| tmpfs/put/clients=50000    | failed  | -             | -         | -         | -         | -         | unknown    |",
		"not measured: tmpfs/put/clients=50000 failed: cluster did not start: m2: listen tcp 127.0.0.1:2390: bind: address already in use",
		"not measured: slowdisk/put/clients=50000 did not run (pending)",
		"whole sweep: The limit at the highest load differed between setups.",
		"The disk limited slowdisk from 1,000 to 10,000 clients.",
		"| tmpfs/put/clients=10000 | latency p99 | 900.00 ms | 2.420 s (+169%) | [1]          |",
		"[1] a fixture figure: PMEM on a Xeon Gold 6254",
		"| clients=1000  | throughput   | 7,296 ± 644.9 | 2,323 ± 32.5  | -68.2%  | worse | yes           |",
		"note: The bottleneck statements were computed when this report was made: the result has none.",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
		}
	}
}

// TestExperimentMarkdownGolden: the Markdown section of an experiment.
func TestExperimentMarkdownGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	docs := []result.Named{named("storage.json", storageSweep()), named("leader-vs-all.json", leaderVsAll(1))}
	if err := Markdown(&b, docs, judgedNamed(docs)); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiment.md", b.Bytes())
}

// figuresJSON is the data of every chart of an experiment report.
func figuresJSON(t *testing.T, doc *result.Document) ([]figData, []byte) {
	t.Helper()
	figs := modelOf(doc).Figures
	b, err := json.MarshalIndent(figs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return figs, append(b, '\n')
}

func figByID(t *testing.T, figs []figData, id string) figData {
	t.Helper()
	for _, f := range figs {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no chart %s", id)
	return figData{}
}

func seriesByName(t *testing.T, f figData, name string) figSeries {
	t.Helper()
	for _, s := range f.Series {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("chart %s has no series %q", f.ID, name)
	return figSeries{}
}

// TestExperimentFigures: the data behind the charts (golden), and what it
// must show: curves against clients per storage where the slowed disk's
// fsync is far above tmpfs's, the members' CPU against the machine's cores,
// the article's figure as a marked point; bars per scenario with the
// article's bar beside ours; panels over time with the fault marked where
// the cluster lost its leader.
func TestExperimentFigures(t *testing.T) {
	t.Parallel()
	figs, data := figuresJSON(t, storageSweep())
	golden(t, "experiment_storage_figures.json", data)
	for _, id := range []string{"exp-throughput", "exp-p50", "exp-p99", "exp-cpu", "exp-disk", "exp-fsync"} {
		f := figByID(t, figs, id)
		if f.Kind != "lines" || !f.LogX || len(f.Series) < 2 {
			t.Errorf("%s: %+v", id, f)
		}
	}
	fsync := figByID(t, figs, "exp-fsync")
	tm, slow := seriesByName(t, fsync, "tmpfs"), seriesByName(t, fsync, "slowdisk")
	// slowdisk's 10,000 clients sent 2.4 requests each: left out.
	if len(tm.Y) != 3 || len(slow.Y) != 2 || slow.Y[0] < 5*tm.Y[0] || fsync.Limit == nil || fsync.Limit.V != 10 {
		t.Errorf("fsync curves: tmpfs %v, slowdisk %v, limit %+v", tm.Y, slow.Y, fsync.Limit)
	}
	// tmpfs's fsyncs all fall in etcd's lowest bucket: the chart marks it.
	if fsync.Floor == nil || fsync.Floor.V != 1 || tm.Y[0] != 1 {
		t.Errorf("fsync chart without etcd's 1 ms lowest bucket marked: floor %+v, tmpfs %v", fsync.Floor, tm.Y)
	}
	if cpu := figByID(t, figs, "exp-cpu"); cpu.Limit == nil || cpu.Limit.V != 2 {
		t.Errorf("cpu chart without the machine's 2 cores: %+v", cpu.Limit)
	}
	if pub := seriesByName(t, figByID(t, figs, "exp-p99"), "article: tmpfs"); !pub.Published || len(pub.X) != 1 || pub.X[0] != 10000 || pub.Y[0] != 900 {
		t.Errorf("published point %+v", pub)
	}
	health := figByID(t, figs, "exp-cell1-health")
	leaders := seriesByName(t, health, "members that answered with a leader")
	if len(health.Events) != 1 || health.Events[0].V != 4 || health.Events[0].Label != "kill leader" {
		t.Errorf("fault not marked at 4 s: %+v", health.Events)
	}
	for k, x := range leaders.X {
		want := 3.0
		switch {
		case x == 5: // the first second after the kill: m1 is gone, m2 and m3 have no leader
			want = 0
		case x > 5:
			want = 2
		}
		if leaders.Y[k] != want {
			t.Errorf("at %g s %g members with a leader, want %g", x, leaders.Y[k], want)
		}
	}
	if reqs := seriesByName(t, figByID(t, figs, "exp-cell1-requests"), "successful"); reqs.Y[4] != 0 || reqs.Y[3] == 0 {
		t.Errorf("requests per second do not drop in the fault's second: %v", reqs.Y)
	}

	figs, data = figuresJSON(t, multicloud())
	golden(t, "experiment_multicloud_figures.json", data)
	tput := figByID(t, figs, "exp-throughput")
	if tput.Kind != "bars" || strings.Join(tput.Categories, ",") != "multicloud-0,multicloud-1,multicloud-2,multicloud-3" {
		t.Fatalf("%+v", tput)
	}
	if a := seriesByName(t, tput, "article"); !a.Published || a.Y[0] != 196.5 || a.Y[1] != 0 {
		t.Errorf("article bar %+v", a)
	}
	dist := figByID(t, figs, "exp-distribution")
	if a := seriesByName(t, dist, "article: multicloud-0"); len(a.Y) != 8 || a.Y[7] != 13.6 {
		t.Errorf("article distribution %+v", a)
	}
	for i := 0; i < 4; i++ {
		for _, p := range []string{"health", "rtt", "slow-applies", "latency", "requests"} {
			figByID(t, figs, "exp-cell"+strconv.Itoa(i)+"-"+p)
		}
	}
}

// TestExperimentGains: the % tables. Without compare:, two modes of one
// setup give one table with spread, significance and the article's change
// for the same pair; four setups give none. With compare:, every other
// value against the base, per workload, a time to Ready as seconds added,
// the article's added seconds beside ours.
func TestExperimentGains(t *testing.T) {
	t.Parallel()
	m := modelOf(leaderVsAll(1))
	if len(m.Gains) != 1 {
		t.Fatalf("%d tables", len(m.Gains))
	}
	g := m.Gains[0]
	if g.Dim != "workload" || g.Base != "leader" || len(g.Others) != 1 || g.Others[0] != "all" || len(g.Rows) != 4 || !g.Article {
		t.Fatalf("%+v", g)
	}
	r := g.Rows[0]
	if r.Metric != "throughput" || r.ChangePct < 38 || r.ChangePct > 40 || r.Significant == nil || !*r.Significant || !strings.Contains(r.A, " ± ") {
		t.Errorf("%+v", r)
	}
	if !strings.HasPrefix(r.ArticleChange, "+45.7%") {
		t.Errorf("the article's change %q, want +45.7%% (37,924.91 to 55,262.25 req/s)", r.ArticleChange)
	}
	if m := modelOf(multicloud()); len(m.Gains) != 0 {
		t.Errorf("four setups got a two-way table: %+v", m.Gains)
	}

	doc := multicloud()
	e := doc.Experiment
	e.Compare = []result.Comparison{{Along: "setup", Base: "multicloud-0"}}
	note := "a real control plane"
	for i, ttr := range []float64{10, 13.7} {
		setup := "multicloud-" + strconv.Itoa(i)
		e.Cells = append(e.Cells, result.Cell{ID: setup + "/kube", Setup: setup, Workload: "kube", Status: result.CellOK, Params: map[string]string{},
			Runs: []result.Run{{Name: "kube", Stats: result.Stats{Requests: 100, DurationSeconds: ttr}, Kube: &result.KubeRun{TimeToReadySeconds: ttr}}}})
		e.Published = append(e.Published, result.Published{Match: map[string]string{"setup": setup, "workload": "kube"}, Metric: "time_to_ready_seconds", Value: []float64{66.1, 69.8}[i], Note: note})
	}
	m = modelOf(doc)
	if len(m.Gains) != 1 {
		t.Fatalf("%d tables", len(m.Gains))
	}
	g = m.Gains[0]
	if g.Dim != "setup" || g.Base != "multicloud-0" || strings.Join(g.Others, ",") != "multicloud-1,multicloud-2,multicloud-3" {
		t.Fatalf("%+v", g)
	}
	var kube, far *gainRow
	for i, r := range g.Rows {
		switch {
		case r.Metric == "time to every pod Ready":
			kube = &g.Rows[i]
		case r.Other == "multicloud-3" && r.Metric == "throughput":
			far = &g.Rows[i]
		}
	}
	if far == nil || far.ChangePct > -92 || far.ChangePct < -94 || far.Point != "benchmark" {
		t.Errorf("multicloud-3's throughput against multicloud-0: %+v", far)
	}
	if kube == nil || kube.Other != "multicloud-1" || kube.Change != "+3.7 s (+37.0%)" || kube.ArticleChange != "+3.7 s (+5.6%) (a real control plane)" {
		t.Errorf("time to Ready: %+v", kube)
	}
	if tb := g.table(); tb.Header[1] != "setup" || tb.Header[len(tb.Header)-1] != "the article's change" {
		t.Errorf("header %v", tb.Header)
	}

	// Along a param the setups give (a distance sweep's rtt_ms), each
	// setup against the one whose value is the base.
	doc = multicloud()
	e = doc.Experiment
	for i := range e.Cells {
		e.Cells[i].Params["rtt_ms"] = strconv.Itoa(i * 10)
	}
	e.Compare = []result.Comparison{{Along: "rtt_ms", Base: "0"}}
	m = modelOf(doc)
	if len(m.Gains) != 1 || strings.Join(m.Gains[0].Others, ",") != "10,20,30" || m.Gains[0].Rows[0].Point != "-" {
		t.Fatalf("along rtt_ms: %+v", m.Gains)
	}
}

// TestCompareExperimentsText: two machines running the same experiment,
// as `etcdlab compare` prints them.
func TestCompareExperimentsText(t *testing.T) {
	t.Parallel()
	a, b := leaderVsAll(1), leaderVsAll(1.12)
	b.Experiment.Cells = b.Experiment.Cells[:1]
	cs, err := compare.Compare(named("m5.json", a), named("m6g.json", b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := CompareText(&out, cs); err != nil {
		t.Fatal(err)
	}
	golden(t, "experiment_compare.txt", out.Bytes())
	if !strings.Contains(out.String(), "not compared: 3-members/all: only in the base") || !strings.Contains(out.String(), "| 3-members/leader | throughput   |") {
		t.Error(out.String())
	}
}

// TestPanelSelection: with more cells than maxPanelCells, panels are drawn
// for the cells with faults and each setup's highest load, and the report
// says so.
func TestPanelSelection(t *testing.T) {
	t.Parallel()
	doc := storageSweep()
	e := doc.Experiment
	for _, clients := range []string{"200", "500"} {
		c := e.Cells[0]
		c.ID, c.Params = "tmpfs/put/clients="+clients, map[string]string{"clients": clients, "conns": "50"}
		e.Cells = append(e.Cells, c)
	}
	m := modelOf(doc)
	var got []string
	for _, f := range m.Figures {
		if strings.HasSuffix(f.ID, "-health") {
			got = append(got, f.ID)
		}
	}
	// Cell 1 had the fault; 2 and 6 are the setups' highest loads.
	if strings.Join(got, " ") != "exp-cell1-health exp-cell2-health exp-cell6-health" {
		t.Errorf("panels for %v", got)
	}
	if !strings.Contains(m.PanelNote, "drawn for 3 of the 8 cells measured") {
		t.Errorf("note %q", m.PanelNote)
	}
}

// TestThin: long series keep at most maxPanelPoints points, and a dip (or
// a spike) survives.
func TestThin(t *testing.T) {
	t.Parallel()
	var xs, ys []float64
	for i := 0; i < 1800; i++ {
		xs, ys = append(xs, float64(i)), append(ys, 3)
	}
	ys[1001] = 0
	tx, ty := thin(xs, ys, math.Min)
	if len(ty) > maxPanelPoints || len(tx) != len(ty) || tx[0] != 0 {
		t.Fatalf("%d points", len(ty))
	}
	dips := 0
	for _, y := range ty {
		if y == 0 {
			dips++
		}
	}
	if dips != 1 {
		t.Errorf("%d dips after thinning", dips)
	}
	if x, y := thin(xs[:10], ys[:10], math.Max); len(x) != 10 || len(y) != 10 {
		t.Error("a short series was thinned")
	}
}

// TestExperimentEdgeCases: experiments with nothing measured, or measured
// without server metrics or start times, render in every format without
// charts of nothing; a document without its experiment is an error.
func TestExperimentEdgeCases(t *testing.T) {
	t.Parallel()
	noServer := storageSweep()
	for i := range noServer.Experiment.Cells {
		c := &noServer.Experiment.Cells[i]
		for k := range c.Runs {
			c.Runs[k].Server, c.Runs[k].Start = nil, time.Time{}
		}
	}
	pending := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Environment: machine(),
		Experiment: &result.Experiment{Name: "x", Cells: []result.Cell{{ID: "a", Setup: "a", Status: result.CellPending}}, Partial: "interrupted"}}
	empty := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment, Experiment: &result.Experiment{Name: "empty"}}
	for name, doc := range map[string]*result.Document{"no server": noServer, "pending": pending, "empty": empty} {
		var b bytes.Buffer
		if err := ExperimentText(&b, doc, TerminalOptions{}, judgedFor(doc)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Markdown(&b, []result.Named{named(name, doc)}, judgedNamed([]result.Named{named(name, doc)})); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := HTML(&b, []result.Named{named(name, doc)}, judgedNamed([]result.Named{named(name, doc)})); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range modelOf(doc).Figures {
			if len(f.Series) == 0 {
				t.Errorf("%s: chart %s has no series", name, f.ID)
			}
			if name == "no server" && (f.ID == "exp-cpu" || strings.HasSuffix(f.ID, "-health")) {
				t.Errorf("%s: chart %s drawn without server metrics", name, f.ID)
			}
		}
	}
	if !strings.Contains(modelOf(noServer).Cells[2].Bottleneck.Statement, "the members' metrics were not scraped") {
		t.Errorf("%+v", modelOf(noServer).Cells[2].Bottleneck)
	}
	bad := &result.Document{SchemaVersion: result.SchemaVersion, Kind: result.KindExperiment}
	if err := HTML(&bytes.Buffer{}, []result.Named{named("bad", bad)}, Judged{}); err == nil {
		t.Error("an experiment document without its experiment rendered")
	}
}

// TestEveryPublishedMetricHasOurs: for every metric an experiment file may
// publish, a cell that measured it has our figure to show beside the
// article's, with a name for people.
func TestEveryPublishedMetricHasOurs(t *testing.T) {
	t.Parallel()
	m := modelOf(storageSweep())
	cell := func(id string) expCell {
		for _, c := range m.Cells {
			if c.Cell.ID == id {
				return c
			}
		}
		t.Fatalf("no cell %s", id)
		return expCell{}
	}
	bench, disk := cell("slowdisk/put/clients=100"), cell("slowdisk/disk")
	for _, metric := range result.PublishedMetrics() {
		c := bench
		switch {
		case strings.HasPrefix(metric, "fsync_"):
			c = disk
		case metric == "time_to_ready_seconds" || strings.HasPrefix(metric, "kube_"):
			k := kubeFixture()
			kc := &result.Cell{ID: "multicloud-0/kube", Status: result.CellOK, Runs: k.Runs, Summaries: []result.Summary{{Name: "kube", Iterations: 2}}}
			c = expCell{Cell: kc, M: result.MeasureCell(kc)}
		}
		v, ok := ourValue(c, metric)
		if !ok || v <= 0 && !strings.HasPrefix(metric, "slow_applies") {
			t.Errorf("%s: no figure of ours from %s (%g, %v)", metric, c.Cell.ID, v, ok)
		}
		if name := metricName(metric); name == metric || strings.Contains(name, "_") {
			t.Errorf("%s: no name for people (%q)", metric, name)
		}
	}
}
