package load

import (
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	t.Parallel()
	k := Keys{Prefix: "/p/", Size: 4, Space: 100, Sequential: true}
	for _, tt := range []struct {
		seq  int64
		want string
	}{{0, "/p/0000"}, {1, "/p/0001"}, {255, "/p/0037"}, {99, "/p/0063"}, {100, "/p/0000"}} {
		if got := string(k.Append(nil, k.Index(tt.seq, nil))); got != tt.want {
			t.Errorf("seq %d: %q, want %q", tt.seq, got, tt.want)
		}
	}
	r := Keys{Prefix: "x", Size: 8, Space: 10}
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
	for _, bad := range []Keys{{Size: 0, Space: 1}, {Size: 1, Space: 0}, {Size: 2, Space: 257}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if (Keys{Size: 2, Space: 256}).Validate() != nil {
		t.Error("2 hex digits hold 256 keys")
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
