package job

import (
	"fmt"
	"strings"
	"time"

	"github.com/etcdlab/etcdlab/invalid"
	"go.yaml.in/yaml/v3"
)

// Duration is a YAML duration ("10s", "1m30s"), as every field of an
// experiment file writes one.
type Duration time.Duration

// D is the duration as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// UnmarshalYAML reads a duration such as 10s or 1m30s.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 10s", n.Line)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v < 0 {
		return fmt.Errorf("line %d: %q is not a duration (write 10s, 500ms or 1m30s)", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML writes the duration as Go spells it.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// ErrText renders an error, naming options with name when it is an
// invalid-input error ({BlockSize} as the file's bs).
func ErrText(err error, name func(string) string) string {
	if inv := invalid.As(err); inv != nil {
		return strings.Replace(err.Error(), inv.Error(), inv.Text(name), 1)
	}
	return err.Error()
}
