package sizing

import (
	"strconv"
	"strings"

	"github.com/etcdlab/etcdlab/invalid"
)

// fields are ObjectBytes' kinds by name, in the order they are listed.
func (b *ObjectBytes) fields() []struct {
	kind string
	v    *int
} {
	return []struct {
		kind string
		v    *int
	}{
		{"Pod", &b.Pod}, {"PodCreate", &b.PodCreate}, {"Node", &b.Node}, {"Lease", &b.Lease}, {"Event", &b.Event},
		{"Endpoints", &b.Endpoints}, {"EndpointSlice", &b.EndpointSlice}, {"ReplicaSet", &b.ReplicaSet},
		{"Deployment", &b.Deployment}, {"Service", &b.Service}, {"Namespace", &b.Namespace}, {"ServiceAccount", &b.ServiceAccount},
	}
}

// Map is b by kind ("Pod": 12000), without the zero ones.
func (b ObjectBytes) Map() map[string]int {
	out := map[string]int{}
	for _, f := range b.fields() {
		if *f.v != 0 {
			out[f.kind] = *f.v
		}
	}
	return out
}

// ParseObjectBytes reads sizes written KIND=BYTES (Pod=15000: BYTES a
// plain integer), kinds as ObjectBytes names them, case-insensitively.
// Its errors are one-line invalid errors.
func ParseObjectBytes(list []string) (ObjectBytes, error) {
	var b ObjectBytes
	for _, s := range list {
		kind, v, ok := strings.Cut(strings.TrimSpace(s), "=")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil || n <= 0 {
			return b, invalid.Errorf("object size %q: want KIND=BYTES with BYTES a positive integer (Pod=15000)", s)
		}
		found := false
		for _, f := range b.fields() {
			if strings.EqualFold(f.kind, strings.TrimSpace(kind)) {
				*f.v, found = n, true
			}
		}
		if !found {
			var kinds []string
			for _, f := range b.fields() {
				kinds = append(kinds, f.kind)
			}
			return b, invalid.Errorf("object size %q: no kind %q (kinds: %s)", s, kind, strings.Join(kinds, ", "))
		}
	}
	return b, nil
}
