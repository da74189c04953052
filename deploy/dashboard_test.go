package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/etcdlab/etcdlab/judge"
)

const dashboardFile = "grafana/etcdlab-dashboard.json"

// dashboard is the part of Grafana's dashboard model the tests read.
type dashboard struct {
	Title         string `json:"title"`
	UID           string `json:"uid"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasource struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type variable struct {
	Name       string          `json:"name"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Datasource *datasource     `json:"datasource"`
}

// query is a query variable's PromQL-like query (Grafana writes it as a
// string or as {"query": ...}).
func (v variable) query() string {
	var s string
	if json.Unmarshal(v.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(v.Query, &o)
	return o.Query
}

type panel struct {
	ID          int         `json:"id"`
	Type        string      `json:"type"`
	Title       string      `json:"title"`
	Description string      `json:"description"`
	Datasource  *datasource `json:"datasource"`
	GridPos     struct {
		H, W, X, Y int
	} `json:"gridPos"`
	Targets     []target `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit       string `json:"unit"`
			Thresholds *struct {
				Steps []struct {
					Color string   `json:"color"`
					Value *float64 `json:"value"`
				} `json:"steps"`
			} `json:"thresholds"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
	Panels []panel `json:"panels"` // a collapsed row's
}

type target struct {
	RefID      string      `json:"refId"`
	Expr       string      `json:"expr"`
	Datasource *datasource `json:"datasource"`
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// allPanels is every panel, those in collapsed rows too.
func (d dashboard) allPanels() []panel {
	var out []panel
	for _, p := range d.Panels {
		out = append(out, p)
		out = append(out, p.Panels...)
	}
	return out
}

// exprs returns every target's expression, named by panel and refId.
func (d dashboard) exprs() map[string]string {
	out := map[string]string{}
	for _, p := range d.allPanels() {
		for _, tg := range p.Targets {
			out[fmt.Sprintf("panel %q %s", p.Title, tg.RefID)] = tg.Expr
		}
	}
	return out
}

// usesDatasource reports whether ds is the dashboard's data source
// variable (so the dashboard imports into any Grafana).
func usesDatasource(ds *datasource) bool {
	return ds != nil && ds.Type == "prometheus" && (ds.UID == "${datasource}" || ds.UID == "$datasource")
}

// TestDashboardStructure decodes the dashboard as Grafana's model and
// checks what an import needs: a Prometheus data source variable, the
// job and instance variables, panels on the 24-column grid that do not
// overlap, unique ids, and targets with an expression and the data source
// variable.
func TestDashboardStructure(t *testing.T) {
	t.Parallel()
	d := readDashboard(t)
	if d.Title == "" || d.UID == "" || d.SchemaVersion < 30 {
		t.Errorf("title %q uid %q schemaVersion %d: want both set and a schema of Grafana 8 or later", d.Title, d.UID, d.SchemaVersion)
	}
	vars := map[string]variable{}
	for _, v := range d.Templating.List {
		vars[v.Name] = v
	}
	if v, ok := vars["datasource"]; !ok || v.Type != "datasource" || v.query() != "prometheus" {
		t.Errorf("no Prometheus data source variable: %+v", v)
	}
	for _, name := range []string{"job", "instance", "etcdlab_job", "apiserver_job"} {
		v, ok := vars[name]
		if !ok || v.Type != "query" || !usesDatasource(v.Datasource) {
			t.Errorf("variable %s: %+v, want a query on the data source variable", name, v)
			continue
		}
		if _, err := labelValuesMetric(v.query()); err != nil {
			t.Errorf("variable %s: %v", name, err)
		}
	}
	ids := map[int]bool{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	targets := 0
	for _, p := range d.allPanels() {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		g := p.GridPos
		if g.W <= 0 || g.H <= 0 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v outside the 24-column grid", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := taken[cell{x, y}]; ok {
					t.Fatalf("panels %q and %q overlap at (%d, %d)", other, p.Title, x, y)
				}
				taken[cell{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			if len(p.Targets) > 0 {
				t.Errorf("row %q has targets", p.Title)
			}
			continue
		}
		if p.Title == "" || p.Description == "" || !usesDatasource(p.Datasource) || len(p.Targets) == 0 {
			t.Errorf("panel %d %q: want a title, a description, the data source variable and targets", p.ID, p.Title)
		}
		refs := map[string]bool{}
		for _, tg := range p.Targets {
			if tg.Expr == "" || tg.RefID == "" || refs[tg.RefID] || !usesDatasource(tg.Datasource) {
				t.Errorf("panel %q target %q: want an expression, a unique refId and the data source variable", p.Title, tg.RefID)
			}
			refs[tg.RefID] = true
			targets++
		}
	}
	if targets < 20 {
		t.Errorf("%d targets: the dashboard lost its panels", targets)
	}
}

var verdictRE = regexp.MustCompile(`Verdict (server\.[a-z0-9_.]+):`)

// TestDashboardThresholds: a panel that draws thresholds names the verdict
// they come from, and draws judge's numbers (its warn and fail levels).
func TestDashboardThresholds(t *testing.T) {
	t.Parallel()
	drawn := 0
	for _, p := range readDashboard(t).allPanels() {
		th := p.FieldConfig.Defaults.Thresholds
		var steps []float64
		if th != nil {
			for _, s := range th.Steps {
				if s.Value != nil {
					steps = append(steps, *s.Value)
				}
			}
		}
		m := verdictRE.FindStringSubmatch(p.Description)
		if m == nil {
			if len(steps) > 0 {
				t.Errorf("panel %q draws thresholds %v but names no verdict", p.Title, steps)
			}
			continue
		}
		j, ok := judge.Lookup(judge.ID(m[1]))
		if !ok {
			t.Errorf("panel %q names verdict %s, which judge does not have", p.Title, m[1])
			continue
		}
		if len(steps) == 0 {
			continue // a count: judged over a run, drawn as it goes
		}
		var want []float64
		for _, v := range []float64{j.Warn, j.Fail} {
			if v > 0 {
				want = append(want, v)
			}
		}
		if !slices.Equal(steps, want) {
			t.Errorf("panel %q draws %v; judge's %s is %v", p.Title, steps, j.ID, want)
		}
		drawn++
	}
	if drawn < 3 {
		t.Errorf("%d panels draw judge's thresholds; want fsync, commit and round trip", drawn)
	}
}
