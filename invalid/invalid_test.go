package invalid

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	t.Parallel()
	kebab := func(f string) string {
		return map[string]string{"Clients": "--clients", "KeySize": "--key-size", "Total": "--total", "Duration": "--duration"}[f]
	}
	for _, tc := range []struct {
		err        error
		plain, cli string
		params     []string
	}{
		{Errorf("{Clients} must be at least 1, not %d", 0), "Clients must be at least 1, not 0", "--clients must be at least 1, not 0", []string{"Clients"}},
		{Errorf("give {Total} or {Duration}"), "give Total or Duration", "give --total or --duration", []string{"Total", "Duration"}},
		// Values are never read as names, and unknown names stay as they are.
		{Errorf("{KeySize} %q is odd; {Other} too", "{Clients}"), `KeySize "{Clients}" is odd; Other too`, `--key-size "{Clients}" is odd; Other too`, []string{"KeySize", "Other"}},
		{Errorf("no options named, 100%% plain"), "no options named, 100% plain", "no options named, 100% plain", nil},
	} {
		e := As(tc.err)
		if e == nil {
			t.Fatalf("%v: not an *Error", tc.err)
		}
		if got := tc.err.Error(); got != tc.plain {
			t.Errorf("Error() = %q, want %q", got, tc.plain)
		}
		if got := e.Text(kebab); got != tc.cli {
			t.Errorf("Text = %q, want %q", got, tc.cli)
		}
		if got := e.Params(); !slices.Equal(got, tc.params) {
			t.Errorf("Params = %v, want %v", got, tc.params)
		}
	}
}

func TestIsThroughWrapping(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("bench: %w", Errorf("{Clients} must be positive"))
	if !Is(err) || As(err) == nil {
		t.Fatal("wrapped invalid error not found")
	}
	if Is(errors.New("connection refused")) || As(nil) != nil {
		t.Fatal("other errors are not invalid input")
	}
	if !strings.HasPrefix(err.Error(), "bench: Clients") {
		t.Fatalf("message %q", err.Error())
	}
}
