package topology

import (
	"embed"
	"path"
	"sort"
	"strings"
)

//go:embed presets/*.yaml
var presetFS embed.FS

// Presets lists the preset names, sorted.
func Presets() []string {
	ents, _ := presetFS.ReadDir("presets")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// preset returns a preset's YAML.
func preset(name string) ([]byte, bool) {
	if strings.ContainsAny(name, "/.") {
		return nil, false
	}
	b, err := presetFS.ReadFile(path.Join("presets", name+".yaml"))
	return b, err == nil
}
