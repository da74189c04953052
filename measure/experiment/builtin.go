package experiment

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
	"github.com/etcdlab/etcdlab/measure/experiment/job"
)

// builtinFS holds the built-in experiments, one per field report.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// Builtins lists the built-in experiments' names, sorted.
func Builtins() []string {
	ents, _ := builtinFS.ReadDir("builtin")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// Builtin returns a built-in experiment's file.
func Builtin(name string) ([]byte, bool) {
	if strings.ContainsAny(name, "/.") {
		return nil, false
	}
	b, err := builtinFS.ReadFile(path.Join("builtin", name+".yaml"))
	return b, err == nil
}

// Load reads a built-in experiment by name, or an experiment file by
// path, and parses it with the jobs of the registry (Parse). Errors are
// invalid-input errors, one line.
func Load(nameOrPath string, jobs job.Registry) (*Spec, error) {
	if b, ok := Builtin(nameOrPath); ok {
		s, err := Parse(nameOrPath+".yaml", b, jobs)
		if s != nil {
			s.builtin = true
		}
		return s, err
	}
	b, err := os.ReadFile(nameOrPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(nameOrPath, "/.") {
			return nil, invalid.Errorf("no built-in experiment or file %q (built-ins: %s)", nameOrPath, strings.Join(Builtins(), ", "))
		}
		return nil, invalid.Errorf("experiment file: %v", err)
	}
	return Parse(nameOrPath, b, jobs)
}
