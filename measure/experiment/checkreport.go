package experiment

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// checkPublished checks each figure's metric and that its match names
// known params with values some cell has.
func (s *Spec) checkPublished() error {
	for i, p := range s.Published {
		if !slices.Contains(result.PublishedMetrics(), p.Metric) {
			return s.errorf([]any{"published", i, "metric"}, "unknown metric %q (one of %s)", p.Metric, strings.Join(result.PublishedMetrics(), ", "))
		}
		if len(p.Match) == 0 {
			return s.errorf([]any{"published", i}, "a published figure needs match: the cells it compares with ({setup: NAME})")
		}
		keys := make([]string, 0, len(p.Match))
		for k := range p.Match {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := p.Match[k]
			values, ok := s.dimValues(k)
			if !ok {
				return s.errorf([]any{"published", i, "match", k}, "match on %q: cells have setup, workload, the sweep's parameters and the setups' params", k)
			}
			if !slices.Contains(values, v) {
				return s.errorf([]any{"published", i, "match", k}, "no cell has %s %q (%s)", k, v, strings.Join(values, ", "))
			}
		}
	}
	return nil
}

// dimValues are the values cells take along dim: the setups' names, the
// workloads' names, or a param's values (paramValues); false for a name
// no cell has.
func (s *Spec) dimValues(dim string) ([]string, bool) {
	var values []string
	switch dim {
	case "setup":
		for _, st := range s.Setups {
			values = append(values, st.Name)
		}
	case "workload":
		for _, w := range s.Workloads {
			values = append(values, w.Name)
		}
	default:
		return s.paramValues(dim)
	}
	return values, true
}

// paramValues are the values a param takes in some profile's cells: a
// swept one's (the file's and its profiles'), or the setups' params.
func (s *Spec) paramValues(k string) ([]string, bool) {
	vs, ok := s.Sweep.Lookup(k)
	values := slices.Clone(vs)
	for _, name := range s.ProfileNames() {
		if pv, ok := s.Profiles[name].Sweep.Lookup(k); ok {
			values = append(values, pv...)
		}
	}
	for _, st := range s.Setups {
		if v, in := st.Params[k]; in {
			ok = true
			values = append(values, v)
		}
	}
	return values, ok
}

// checkCompare checks compare: (a dimension cells have, a base value
// some cell has) and knee: (a numeric param).
func (s *Spec) checkCompare() error {
	for i, c := range s.Compare {
		values, ok := s.dimValues(c.Along)
		if !ok {
			return s.errorf([]any{"compare", i, "along"}, "%q: compare along setup, workload, a swept parameter or a setup's param", c.Along)
		}
		if !slices.Contains(values, c.Base) {
			return s.errorf([]any{"compare", i, "base"}, "no cell has %s %q (%s)", c.Along, c.Base, strings.Join(values, ", "))
		}
	}
	if s.Knee != "" {
		vs, ok := s.paramValues(s.Knee)
		if !ok {
			return s.errorf([]any{"knee"}, "%q is neither swept nor a setup's param", s.Knee)
		}
		for _, v := range vs {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return s.errorf([]any{"knee"}, "%s takes the value %q: a knee needs numbers", s.Knee, v)
			}
		}
	}
	return nil
}
