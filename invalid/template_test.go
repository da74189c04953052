package invalid

import (
	"slices"
	"testing"
)

// TestTemplateRoundTrip: an error carried as its Template reads the same,
// names the same options, and still does not read values as names.
func TestTemplateRoundTrip(t *testing.T) {
	t.Parallel()
	flag := func(f string) string { return map[string]string{"Links": "--rtt", "Clients": "--clients"}[f] }
	for _, err := range []*Error{
		As(Errorf("the cluster was started without {Links}")),
		As(Errorf("{Clients} %q is 100%% odd; {Other} too", "{Links}")),
		As(Errorf("no options named")),
	} {
		back := FromTemplate(err.Template())
		if back.Error() != err.Error() || back.Text(flag) != err.Text(flag) || !slices.Equal(back.Params(), err.Params()) {
			t.Errorf("%q came back as %q (%q, %v)", err.Text(flag), back.Error(), back.Text(flag), back.Params())
		}
	}
}
