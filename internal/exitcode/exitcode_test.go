package exitcode

import (
	"errors"
	"fmt"
	"testing"
)

func TestCode(t *testing.T) {
	t.Parallel()
	base := errors.New("boom")
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"plain", base, Failure},
		{"usage", Usagef("bad flag %q", "x"), Usage},
		{"wrapped usage", fmt.Errorf("ctx: %w", Usagef("bad")), Usage},
		{"check failed", With(base, CheckFailed), CheckFailed},
		{"first code wins", With(Usagef("bad"), Failure), Usage},
	} {
		if got := Code(tt.err); got != tt.want {
			t.Errorf("%s: Code = %d, want %d", tt.name, got, tt.want)
		}
	}
	if With(nil, Usage) != nil {
		t.Error("With(nil) must stay nil")
	}
	if !errors.Is(With(base, Usage), base) {
		t.Error("With must keep the wrap chain")
	}
}
