package experiment

import (
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/result"
)

// Mark is a value of a numeric param that the report marks on its curves
// along that param, with what it stands for: the distance sweep marks the
// multi-cloud article's 600 km (17.6 ms in the presets' model) on its
// round-trip axis. A Mark is read-only after Parse.
type Mark struct {
	Param string  `yaml:"param"`
	At    float64 `yaml:"at"`
	Label string  `yaml:"label"`
}

// checkMarks checks marks: a numeric param cells have (swept or a
// setup's), and a label.
func (s *Spec) checkMarks() error {
	for i, m := range s.Marks {
		vs, ok := s.paramValues(m.Param)
		if !ok {
			return s.errorf([]any{"marks", i, "param"}, "%q is neither swept nor a setup's param", m.Param)
		}
		for _, v := range vs {
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				return s.errorf([]any{"marks", i, "param"}, "%s takes the value %q: a mark needs a numeric param", m.Param, v)
			}
		}
		if strings.TrimSpace(m.Label) == "" {
			return s.errorf([]any{"marks", i}, "a mark needs a label: what the value stands for")
		}
	}
	return nil
}

// resultMarks are the file's marks as the result records them.
func (s *Spec) resultMarks() []result.Mark {
	var out []result.Mark
	for _, m := range s.Marks {
		out = append(out, result.Mark{Param: m.Param, At: m.At, Label: m.Label})
	}
	return out
}
