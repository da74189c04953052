package jobs

import (
	"reflect"
	"strings"
	"testing"
)

// TestRegistry: the jobs are listed in the order messages name them, each
// once, and each gives a typed zero value to decode its fields into.
func TestRegistry(t *testing.T) {
	t.Parallel()
	reg := Registry()
	if got := strings.Join(reg.Names(), " "); got != "bench disk check doctor maintenance" {
		t.Errorf("names %q", got)
	}
	for _, j := range reg {
		if reflect.TypeOf(j.Fields()) == nil || !reflect.ValueOf(j.Fields()).IsZero() {
			t.Errorf("%s: Fields() = %#v, want a typed zero value", j.Name(), j.Fields())
		}
		if reg.Lookup(j.Name()) != j {
			t.Errorf("%s: Lookup finds another job", j.Name())
		}
	}
	if ok, err := reg.ValidateLoadCPUs(0.001); !ok || err == nil {
		t.Errorf("a load budget of 0.001 cores: %v %v", ok, err)
	}
}
