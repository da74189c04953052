package load

import (
	"slices"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	t.Parallel()
	k := Keys{Prefix: "/p/", KeySize: 4, KeySpaceSize: 100, Sequential: true}
	for _, tt := range []struct {
		seq  int64
		want string
	}{{0, "/p/0000"}, {1, "/p/0001"}, {255, "/p/0037"}, {99, "/p/0063"}, {100, "/p/0000"}} {
		if got := string(k.Append(nil, k.Index(tt.seq, nil))); got != tt.want {
			t.Errorf("seq %d: %q, want %q", tt.seq, got, tt.want)
		}
	}
	r := Keys{Prefix: "x", KeySize: 8, KeySpaceSize: 10}
	seen := map[string]bool{}
	rnd := newRand(1)
	for range 1000 {
		key := string(r.Append(nil, r.Index(0, rnd)))
		if len(key) != 9 || !strings.HasPrefix(key, "x") {
			t.Fatalf("bad key %q", key)
		}
		seen[key] = true
	}
	if len(seen) != 10 {
		t.Fatalf("random keys: %d distinct, want 10", len(seen))
	}
	for _, tc := range []struct {
		k      Keys
		params []string // the fields the error names; nil: valid
	}{
		{Keys{KeySize: 0, KeySpaceSize: 1}, []string{"KeySize"}},
		{Keys{KeySize: 1, KeySpaceSize: 0}, []string{"KeySpaceSize"}},
		{Keys{KeySize: 2, KeySpaceSize: 257}, []string{"KeySize", "KeySize", "KeySpaceSize"}},
		{Keys{KeySize: 2, KeySpaceSize: 256}, nil}, // 2 hex digits hold 256 keys
		{Keys{KeySize: 20, KeySpaceSize: 1 << 62}, nil},
	} {
		err := tc.k.Validate()
		if got := invalidParams(err); !slices.Equal(got, tc.params) || (err == nil) != (tc.params == nil) {
			t.Errorf("%+v: %v, want an error naming %v", tc.k, err, tc.params)
		}
	}
	if PrefixEnd("/a/") != "/a0" || PrefixEnd("a\xff") != "b" {
		t.Errorf("PrefixEnd: %q %q", PrefixEnd("/a/"), PrefixEnd("a\xff"))
	}
	v := RandomValue(64)
	for _, c := range v {
		if c < '0' || c > 'z' {
			t.Fatalf("unprintable value byte %q", c)
		}
	}
}
