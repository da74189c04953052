package replay

import (
	"embed"
	"sort"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
)

// SamplePrefix names a profile shipped with etcdlab instead of a file:
// "sample:kube" is samples/kube.yaml, for trying a replay (and the replay
// experiment) without a cluster of one's own to profile.
const SamplePrefix = "sample:"

// samplesFS holds the sample profiles, each taken by etcdlab profile from
// a lab cluster (docs/profiles.md says how).
//
//go:embed samples/*.yaml
var samplesFS embed.FS

// Samples lists the sample profiles' names, sorted.
func Samples() []string {
	ents, _ := samplesFS.ReadDir("samples")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// sample reads and checks the sample profile name.
func sample(name string) (*Profile, error) {
	if strings.ContainsAny(name, "/.") {
		return nil, invalid.Errorf("no sample profile %q (samples: %s)", name, strings.Join(Samples(), ", "))
	}
	b, err := samplesFS.ReadFile("samples/" + name + ".yaml")
	if err != nil {
		return nil, invalid.Errorf("no sample profile %q (samples: %s)", name, strings.Join(Samples(), ", "))
	}
	p, err := Parse(b)
	if err != nil {
		return nil, invalid.Errorf("sample profile %s: %s", name, err.Error())
	}
	return p, nil
}
