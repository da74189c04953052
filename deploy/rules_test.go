package deploy

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/etcdlab/etcdlab/judge"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

const rulesFile = "prometheus/etcdlab-rules.yaml"

// ruleFile is Prometheus' rule file format.
type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []rule `yaml:"rules"`
	} `yaml:"groups"`
}

type rule struct {
	Record      string            `yaml:"record"`
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func readRules(t *testing.T) []rule {
	t.Helper()
	b, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f ruleFile
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	var out []rule
	for _, g := range f.Groups {
		out = append(out, g.Rules...)
	}
	return out
}

// recorded maps each recording rule's name to its expression.
func recorded(rules []rule) map[string]string {
	out := map[string]string{}
	for _, r := range rules {
		if r.Record != "" {
			out[r.Record] = r.Expr
		}
	}
	return out
}

// whatMetric is the etcd metric a judge threshold's What names in
// parentheses.
var whatMetric = regexp.MustCompile(`\((etcd_[a-z_]+)\)`)

// TestRulesThresholds: every alert names a verdict of judge's and a level,
// compares with ">=" against judge's number for that level, reads (through
// the recording rules) the metric judge's threshold names, and carries
// judge's advice and source; every verdict judged from etcd's metrics has
// its alerts.
func TestRulesThresholds(t *testing.T) {
	t.Parallel()
	rules := readRules(t)
	rec := recorded(rules)
	covered := map[judge.ID]map[string]bool{}
	for _, r := range rules {
		if r.Alert == "" {
			continue
		}
		id := judge.ID(r.Labels["threshold"])
		th, ok := judge.Lookup(id)
		if !ok {
			t.Errorf("alert %s: threshold %q is not judge's", r.Alert, id)
			continue
		}
		want := map[string]float64{"WARN": th.Warn, "FAIL": th.Fail}[r.Labels["verdict"]]
		sev := map[string]string{"WARN": "warning", "FAIL": "critical"}[r.Labels["verdict"]]
		if want == 0 || r.Labels["severity"] != sev {
			t.Errorf("alert %s: verdict %q severity %q; judge's %s has warn %g, fail %g", r.Alert, r.Labels["verdict"], r.Labels["severity"], id, th.Warn, th.Fail)
			continue
		}
		e, err := parser.ParseExpr(r.Expr)
		if err != nil {
			t.Errorf("alert %s: %v", r.Alert, err)
			continue
		}
		b, ok := e.(*parser.BinaryExpr)
		n, isNum := func() (*parser.NumberLiteral, bool) {
			if !ok {
				return nil, false
			}
			n, ok := b.RHS.(*parser.NumberLiteral)
			return n, ok
		}()
		if !ok || !isNum || b.Op != parser.GTE || b.ReturnBool {
			t.Errorf("alert %s: %q is not `series >= number`, judge's comparison", r.Alert, r.Expr)
			continue
		}
		if n.Val != want {
			t.Errorf("alert %s (%s %s): fires at %g, judge says %g", r.Alert, id, r.Labels["verdict"], n.Val, want)
		}
		if m := whatMetric.FindStringSubmatch(th.What); m == nil || !readsMetric(t, r.Expr, rec, m[1]) {
			t.Errorf("alert %s: does not read the metric judge's %s names (%s)", r.Alert, id, th.What)
		}
		if r.Annotations["description"] != th.Advice || r.Annotations["source"] != th.Source || r.Annotations["summary"] == "" {
			t.Errorf("alert %s: annotations %v; want judge's advice %q and source %q, and a summary", r.Alert, r.Annotations, th.Advice, th.Source)
		}
		if covered[id] == nil {
			covered[id] = map[string]bool{}
		}
		covered[id][r.Labels["verdict"]] = true
	}
	for _, th := range judge.All() {
		if !strings.HasPrefix(string(th.ID), "server.") {
			continue // the disk job's and the client's own figures have no metric
		}
		for level, v := range map[string]float64{"WARN": th.Warn, "FAIL": th.Fail} {
			if v > 0 && !covered[th.ID][level] {
				t.Errorf("judge's %s %s (%g) has no alert", th.ID, level, v)
			}
		}
	}
}

// readsMetric reports whether expr reads metric, directly or through the
// recording rules.
func readsMetric(t *testing.T, expr string, rec map[string]string, metric string) bool {
	t.Helper()
	names, err := metricNames(expr)
	if err != nil {
		t.Error(err)
		return false
	}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimSuffix(n, "_bucket"), "_total")
		if base == strings.TrimSuffix(metric, "_total") {
			return true
		}
		if inner, ok := rec[n]; ok && readsMetric(t, inner, rec, metric) {
			return true
		}
	}
	return false
}

// TestPromtoolCheckRules loads the rules with Prometheus' own promtool.
func TestPromtoolCheckRules(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		t.Skipf("no promtool (Debian's prometheus package has it; CI installs it): %v", err)
	}
	out, err := exec.Command(bin, "check", "rules", rulesFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
}
