package jobs

import (
	"strings"
	"testing"
)

func TestSplitLine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{`put --total=5`, "put|--total=5"},
		{`  range 'a b' "c d"  `, "range|a b|c d"},
		{`put --prefix=/x\ y/`, "put|--prefix=/x y/"},
		{`range ''`, "range|"},
	} {
		w, err := splitLine(tt.in)
		if err != nil || strings.Join(w, "|") != tt.want {
			t.Errorf("%q: %q %v, want %q", tt.in, w, err, tt.want)
		}
		if back, _ := splitLine(quoteLine(w)); strings.Join(back, "|") != tt.want {
			t.Errorf("%q: quoteLine does not round trip: %q", tt.in, quoteLine(w))
		}
	}
	if _, err := splitLine(`put 'open`); err == nil {
		t.Error("unterminated quote accepted")
	}
}
