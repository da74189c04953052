package census

import (
	"slices"
	"testing"
)

func TestGroups(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		want []string
	}{
		{"/registry/pods/default/web-1", []string{"/registry/", "/registry/pods/"}},
		{"/registry/services/specs/default/web", []string{"/registry/", "/registry/services/specs/"}},
		{"/registry/services/endpoints/default/web", []string{"/registry/", "/registry/services/endpoints/"}},
		{"/registry/minions/n1", []string{"/registry/", "/registry/minions/"}},
		{"/registry/health", []string{"/registry/"}},
		{"/etcdlab/bench/x/k1", []string{"/etcdlab/"}},
		{"/toplevel", []string{"/toplevel"}},
		{"compact_rev_key", []string{"(other)"}},
		{"app/config", []string{"app/"}},
	} {
		if got := Groups(tc.key); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.key, got, tc.want)
		}
	}
}
