package render

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/etcdlab/etcdlab/internal/units"
	"github.com/etcdlab/etcdlab/internal/version"
	"github.com/etcdlab/etcdlab/result"
	"github.com/etcdlab/etcdlab/result/compare"
)

//go:embed templates/report.html.tmpl
var htmlTemplate string

// page is what the HTML template renders.
type page struct {
	Title       string
	Generated   string
	Version     string
	Docs        []docView
	Comparisons []compare.Comparison
	Charts      []Chart // charts of the comparison
}

type docView struct {
	Name, Kind, Created string
	Env                 [][2]string
	Verdicts            []result.Verdict
	Overall             string
	Notes, Warnings     []string
	Tables              []namedTable
	Charts              []Chart
	// Bottlenecks are an experiment's statements: the whole sweep's, then
	// each cell's.
	Bottlenecks []statement
	// Headline is the answer a result leads with (size's choice), and
	// Sections its parts in reading order, before Tables and Charts.
	Headline string
	Sections []sizeSection
}

// statement is one bottleneck statement in a report.
type statement struct {
	Title, Resource, Text string
}

type namedTable struct {
	Title string
	Table
}

// HTML writes one self-contained HTML report for docs: inline SVG charts
// and CSS, no script and nothing to fetch, so it opens offline and prints.
// Several documents of one kind are also compared, the first as the base;
// j is what judge worked out for the report.
func HTML(w io.Writer, docs []result.Named, j Judged) error {
	tmpl, err := reportTemplate()
	if err != nil {
		return err
	}
	p := page{Title: "etcdlab report", Generated: time.Now().UTC().Format(time.RFC3339), Version: version.String()}
	for i, d := range docs {
		v, err := view(d, fmt.Sprintf("d%d-", i), j)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Name, err)
		}
		p.Docs = append(p.Docs, v)
	}
	if len(docs) > 1 {
		if cs, err := compare.Compare(docs[0], docs[1:]...); err == nil {
			p.Comparisons = cs
			if p.Charts, err = comparisonCharts(docs, cs); err != nil {
				return err
			}
		}
	}
	return tmpl.Execute(w, p)
}

// reportTemplate is the report page's template with its functions.
func reportTemplate() (*template.Template, error) {
	return template.New("report").Funcs(template.FuncMap{
		"pct": func(v float64) string { return fmt.Sprintf("%+.1f%%", v) },
		"num": num,
		"lower": func(s string) string {
			return map[string]string{"PASS": "pass", "WARN": "warn", "FAIL": "fail", "SKIP": "warn"}[s]
		},
		"better": betterWord,
		"sig":    sigWord,
	}).Parse(htmlTemplate)
}

func view(d result.Named, prefix string, j Judged) (docView, error) {
	doc := d.Doc
	e := doc.Environment
	v := docView{Name: d.Name, Kind: doc.Kind, Created: doc.CreatedAt.Format(time.RFC3339), Verdicts: doc.Verdicts, Overall: doc.Overall, Notes: doc.Notes}
	v.Env = [][2]string{{"etcdlab", e.Etcdlab}, {"machine", fmt.Sprintf("%d CPUs, %s, %s/%s, kernel %s", e.CPUs, humanize.IBytes(e.MemoryBytes), e.OS, e.Arch, e.Kernel)}}
	if e.ServerVersion != "" {
		v.Env = append(v.Env, [2]string{"etcd", fmt.Sprintf("%s, %d members%s", e.ServerVersion, e.Members, map[bool]string{true: ", started by etcdlab for the run"}[e.LocalCluster])})
	}
	if e.DataDir != "" {
		v.Env = append(v.Env, [2]string{"data", e.DataDir + " (" + e.Filesystem + ")"})
	}
	var err error
	switch doc.Kind {
	case result.KindBench:
		if doc.Bench != nil {
			b := doc.Bench
			v.Env = append(v.Env, [2]string{"workload", fmt.Sprintf("%s, %s loop, conns %v, clients %v, total %d, duration %s, iterations %d", b.Command, b.Mode, b.Conns, b.Clients, b.Total, time.Duration(b.Duration), b.Iterations)})
		}
		v.Tables = append(v.Tables, namedTable{"Runs", runsTableData(doc)})
		v.Tables = append(v.Tables, kubeTables(doc)...)
		v.Charts, err = benchFigures(doc, prefix)
	case result.KindCheck:
		c := doc.Check
		v.Env = append(v.Env, [2]string{"check", fmt.Sprintf("%s mode; highest load level passed: %s", c.Mode, orNone(c.Highest))})
		v.Tables = checkTables(doc)
		v.Notes = append(v.Notes, c.Partial...)
		if doc.Disk != nil {
			v.Warnings = doc.Disk.Warnings
			dc, err := diskFigures(doc, prefix+"disk-")
			if err != nil {
				return v, err
			}
			v.Charts = append(v.Charts, dc...)
		}
		if len(doc.Runs) > 0 {
			bc, err := benchFigures(doc, prefix+"load-")
			if err != nil {
				return v, err
			}
			v.Charts = append(v.Charts, bc...)
		}
		v.Tables = append(v.Tables, namedTable{"Thresholds", thresholdsTable(j.Thresholds)})
	case result.KindDisk:
		dk := doc.Disk
		v.Env = append(v.Env, [2]string{"disk", fmt.Sprintf("%s profile on %s (%s, %s)", dk.Profile, dk.Dir, dk.Filesystem, dk.Device)}, [2]string{"fio equivalent", dk.Equivalent})
		v.Warnings = dk.Warnings
		v.Tables = append(v.Tables, namedTable{"Jobs", jobsTableData(dk)})
		if dk.Suite != "" {
			v.Notes = append(v.Notes, "suite: "+dk.Suite)
		}
		v.Charts, err = diskFigures(doc, prefix)
	case result.KindDoctor:
		err = doctorView(&v, doc, prefix)
	case result.KindSize:
		if doc.Size == nil {
			return v, fmt.Errorf("a size result without its answer")
		}
		err = sizeView(&v, doc.Size, prefix)
	case result.KindExperiment:
		if doc.Experiment == nil {
			return v, fmt.Errorf("an experiment result without its experiment")
		}
		err = experimentView(&v, newExpModel(doc, j.Statements[doc]), prefix)
	}
	return v, err
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// thresholdsTable lists every threshold etcdlab judges by (the rows of
// the one table in package judge, passed in).
func thresholdsTable(ths []Threshold) Table {
	t := Table{Header: []string{"id", "measured", "warn from", "fail from", "source"}}
	for _, th := range ths {
		d := func(v float64) string {
			if v == 0 {
				return "-"
			}
			if th.Unit == "s" {
				return units.Seconds(v)
			}
			return fmt.Sprintf("%g", v)
		}
		t.Rows = append(t.Rows, []string{th.ID, th.What, d(th.Warn), d(th.Fail), th.Source})
	}
	return t
}

// runsTableData is the bench runs table shared by HTML and Markdown.
func runsTableData(doc *result.Document) Table {
	t := Table{Header: []string{"run", "requests", "errors", "req/s", "p50 ms", "p99 ms", "p99.9 ms", "mean ms", "max ms"}}
	for _, r := range doc.Runs {
		t.Rows = append(t.Rows, []string{r.Name, strconv.FormatInt(r.Requests, 10), strconv.FormatInt(opCount(r.Stats)-r.Requests, 10), f1(r.ThroughputRPS),
			quantileMS(r, r.Latency.P50), quantileMS(r, r.Latency.P99), quantileMS(r, r.Latency.P999), ms(r.Latency.Mean), quantileMS(r, r.Latency.Max)})
	}
	return t
}

// jobsTableData is the disk jobs table shared by HTML and Markdown.
func jobsTableData(d *result.Disk) Table {
	t := Table{Header: []string{"job", "ops", "IOPS", "bandwidth", "sync p50", "sync p99", "sync p99.9", "I/O p99"}}
	for _, j := range d.Jobs {
		sync := func(p float64) string {
			if j.SyncLatency == nil {
				return "-"
			}
			return units.Seconds(j.SyncLatency.At(p))
		}
		io := "-"
		if j.IOLatency != nil {
			io = units.Seconds(j.IOLatency.At(99))
		}
		t.Rows = append(t.Rows, []string{j.Name, strconv.FormatInt(j.Ops, 10), fmt.Sprintf("%.0f", j.IOPS), humanize.IBytes(uint64(j.BandwidthBytesS)) + "/s", sync(50), sync(99), sync(99.9), io})
	}
	return t
}

// comparisonCharts puts the documents' headline figures side by side.
func comparisonCharts(docs []result.Named, cs []compare.Comparison) ([]Chart, error) {
	names := make([]string, len(docs))
	for i := range docs {
		names[i] = strconv.Itoa(i + 1)
	}
	t := Table{}
	var charts []Chart
	switch docs[0].Doc.Kind {
	case result.KindBench:
		rps := make([]float64, len(docs))
		lat := make([][]float64, 2)
		t.Header = []string{"result", "req/s", "p50 ms", "p99 ms"}
		for i, d := range docs {
			s := headline(d.Doc)
			rps[i] = s.ThroughputRPS.Mean
			lat[0], lat[1] = append(lat[0], s.P50.Mean*1000), append(lat[1], s.P99.Mean*1000)
			t.Rows = append(t.Rows, []string{fmt.Sprintf("%d: %s", i+1, d.Name), f1(s.ThroughputRPS.Mean), ms(s.P50.Mean), ms(s.P99.Mean)})
		}
		c, err := barChart("cmp-throughput", "Requests per second, per result", "requests per second", names, []string{"req/s"}, [][]float64{rps})
		if err != nil {
			return nil, err
		}
		c.Table = t
		charts = append(charts, c)
		c, err = barChart("cmp-latency", "Latency, per result", "latency (ms)", names, []string{"p50", "p99"}, lat)
		if err != nil {
			return nil, err
		}
		c.Table = t
		charts = append(charts, c)
	case result.KindExperiment:
		return experimentComparisonCharts(docs, cs)
	case result.KindDisk:
		iops := make([]float64, len(docs))
		p99 := make([]float64, len(docs))
		t.Header = []string{"result", "IOPS", "sync p99"}
		for i, d := range docs {
			if d.Doc.Disk == nil || len(d.Doc.Disk.Jobs) == 0 {
				continue
			}
			j := d.Doc.Disk.Jobs[0]
			iops[i], p99[i] = j.IOPS, j.SyncLatency.At(99)*1000
			t.Rows = append(t.Rows, []string{fmt.Sprintf("%d: %s", i+1, d.Name), fmt.Sprintf("%.0f", j.IOPS), units.Seconds(j.SyncLatency.At(99))})
		}
		for _, spec := range []struct {
			id, title, unit string
			v               []float64
		}{{"cmp-iops", "Sequential sync IOPS, per result", "IOPS", iops}, {"cmp-p99", "Sync p99, per result", "ms", p99}} {
			c, err := barChart(spec.id, spec.title, spec.unit, names, []string{spec.unit}, [][]float64{spec.v})
			if err != nil {
				return nil, err
			}
			c.Table = t
			charts = append(charts, c)
		}
	}
	return charts, nil
}

// headline is a bench document's first sweep point.
func headline(d *result.Document) result.Summary {
	if ps := compare.Points(d); len(ps) > 0 {
		return ps[0]
	}
	return result.Summary{}
}

func num(unit string, v float64) string {
	if unit == "s" {
		return units.Seconds(v)
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + unit
}

func betterWord(b int) string {
	switch b {
	case 1:
		return "better"
	case -1:
		return "worse"
	}
	return "same"
}

func sigWord(s *bool) string {
	switch {
	case s == nil:
		return "n/a (no iterations)"
	case *s:
		return "yes"
	}
	return "no (within the spread)"
}
