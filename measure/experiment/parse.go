package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
	"go.yaml.in/yaml/v3"
)

// Parse reads an experiment file and checks it, its workloads with the
// jobs of the registry (measure/jobs.Registry: a workload's key names its
// job). file names it in errors (and is where relative topology files are
// found). Every error is a
// one-line invalid-input error (package invalid) that starts with the file
// and the line: "storage.yaml line 12: setups[0].topology: ...".
func Parse(file string, text []byte, jobs job.Registry) (*Spec, error) {
	s := &Spec{file: file, text: text, jobs: jobs}
	var root yaml.Node
	if err := yaml.Unmarshal(text, &root); err != nil {
		return nil, s.yamlError(err)
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, invalid.Errorf("%s: the file is empty", file)
	}
	s.tree = (*node)(root.Content[0])
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := s.decode(dec); err != nil {
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, invalid.Errorf("%s line %d: one experiment per file (a second document starts here)", file, extra.Line)
	}
	if s.Name == "" {
		s.Name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// Text is the file as it was read.
func (s *Spec) Text() []byte { return s.text }

// errorf is an invalid-input error at path (keys and indexes from the
// root, as in "setups", 0, "topology"): the file, the line of the
// deepest node of path that exists, the path, and the message.
func (s *Spec) errorf(path []any, format string, args ...any) error {
	line := s.tree.line(path...)
	msg := fmt.Sprintf(format, args...)
	if p := pathString(path); p != "" {
		msg = p + ": " + msg
	}
	return invalid.Errorf("%s line %d: %s", s.file, line, msg)
}

// yamlErrors rewrite go-yaml's messages: "line 5: field foo not found in
// type experiment.Setup" is an unknown field.
var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)
	yamlLine     = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	goTypeName   = regexp.MustCompile(`into (?:\[\])?(?:map\[string\])?(?:experiment|jobs)\.(\w+)`)
)

// yamlError turns a go-yaml error into one line that starts with the file
// and the line.
func (s *Spec) yamlError(err error) error {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		return invalid.Errorf("%s line %s: unknown field %q", s.file, m[1], m[2])
	}
	msg = goTypeName.ReplaceAllString(msg, "into a $1")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return invalid.Errorf("%s line %s: %s", s.file, m[1], strings.ReplaceAll(m[2], "\n", " "))
	}
	return invalid.Errorf("%s: %s", s.file, strings.ReplaceAll(msg, "\n", " "))
}

// lineError is an error a scalar's UnmarshalYAML returns, with its line.
func lineError(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("line %d: %s", n.Line, fmt.Sprintf(format, args...))
}

// paramName is a sweep parameter's name, as written in {placeholders}.
var paramName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// UnmarshalYAML reads a mapping of parameter names to lists of scalar
// values, in order.
func (s *Sweep) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return lineError(n, "sweep: want a mapping of names to lists of values, such as {clients: [100, 1000]}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !paramName.MatchString(k.Value) {
			return lineError(k, "sweep parameter %q: use lower case letters, digits and _", k.Value)
		}
		if _, dup := s.Lookup(k.Value); dup {
			return lineError(k, "sweep parameter %q is given twice", k.Value)
		}
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return lineError(v, "sweep parameter %q: want a list of values, such as [100, 1000]", k.Value)
		}
		p := Param{Name: k.Value, line: k.Line}
		for _, e := range v.Content {
			if e.Kind != yaml.ScalarNode || e.Value == "" {
				return lineError(e, "sweep parameter %q: each value must be a number or a word", k.Value)
			}
			p.Values = append(p.Values, e.Value)
		}
		*s = append(*s, p)
	}
	return nil
}

// node is a YAML node, for finding the line of a path.
type node yaml.Node

// line returns the line of the deepest node of path that exists: a
// mapping's key (string) or a sequence's index (int).
func (n *node) line(path ...any) int {
	cur := (*yaml.Node)(n)
	line := cur.Line
	for _, p := range path {
		var next *yaml.Node
		switch k := p.(type) {
		case string:
			if cur.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(cur.Content); i += 2 {
					if cur.Content[i].Value == k {
						line = cur.Content[i].Line
						next = cur.Content[i+1]
					}
				}
			}
		case int:
			if cur.Kind == yaml.SequenceNode && k < len(cur.Content) {
				next = cur.Content[k]
				line = next.Line
			}
		}
		if next == nil {
			return line
		}
		cur = next
		if cur.Kind == yaml.ScalarNode {
			line = cur.Line
		}
	}
	return line
}

// pathString writes a path as "setups[0].topology".
func pathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(k) + "]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		}
	}
	return b.String()
}
