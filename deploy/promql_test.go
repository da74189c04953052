package deploy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// grafanaValues are what the dashboard's variables stand for when its
// expressions are parsed or run: a job name (the test Prometheus' jobs),
// match-all regexes, and windows that hold several 1 s scrapes.
func grafanaValues() map[string]string {
	return map[string]string{
		"job": "etcd", "instance": ".+", "etcdlab_job": "etcdlab", "apiserver_job": ".+",
		"__rate_interval": "1m", "__interval": "15s", "__range": "1h",
	}
}

var grafanaVar = regexp.MustCompile(`\$\{?(\w+)\}?`)

// substitute replaces the Grafana variables in expr; an unknown one is an
// error.
func substitute(expr string) (string, error) {
	var unknown []string
	values := grafanaValues()
	out := grafanaVar.ReplaceAllStringFunc(expr, func(v string) string {
		name := grafanaVar.FindStringSubmatch(v)[1]
		if val, ok := values[name]; ok {
			return val
		}
		unknown = append(unknown, v)
		return v
	})
	if len(unknown) > 0 {
		return "", fmt.Errorf("unknown variables %v", unknown)
	}
	return out, nil
}

// metricNames parses expr with Prometheus' parser and returns the metric
// names its selectors read; a selector without a fixed name is an error.
func metricNames(expr string) ([]string, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	var bad error
	parser.Inspect(e, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		name := vs.Name
		for _, m := range vs.LabelMatchers {
			if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
				name = m.Value
			}
		}
		if name == "" {
			bad = fmt.Errorf("a selector without a metric name: %s", vs)
		}
		names = append(names, name)
		return nil
	})
	return names, bad
}

// labelValuesMetric is the metric of a Grafana label_values(metric{...},
// label) variable query.
func labelValuesMetric(query string) (string, error) {
	inner, ok := strings.CutPrefix(query, "label_values(")
	i := strings.LastIndexByte(inner, ',')
	if !ok || i < 0 {
		return "", fmt.Errorf("not label_values(selector, label): %q", query)
	}
	sel, err := substitute(inner[:i])
	if err != nil {
		return "", err
	}
	names, err := metricNames(sel)
	if err != nil || len(names) != 1 {
		return "", fmt.Errorf("%q: %v (names %v)", query, err, names)
	}
	return names[0], nil
}
