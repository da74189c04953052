package logscan

import (
	"testing"
)

// TestExpensive: a slow request whose answer listed many keys is an
// expensive read (cause requests), in zap's response field or in a text
// line; a slow request with a small answer stays a slow apply.
func TestExpensive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, line, want string
	}{
		{"zap listing", `{"level":"warn","ts":"2026-11-25T10:00:00.000Z","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"1.2s","expected-duration":"100ms","prefix":"read-only range ","request":"key:\"/registry/pods/\" range_end:\"/registry/pods0\" ","response":"range_response_count:100000 size:12345678"}`, "expensive-read"},
		{"zap small", `{"level":"warn","ts":"2026-11-25T10:00:00.000Z","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"1.2s","expected-duration":"100ms","prefix":"read-only range ","request":"key:\"/a\" ","response":"range_response_count:1 size:6"}`, "apply-took-too-long"},
		{"zap write", `{"level":"warn","ts":"2026-11-25T10:00:00.000Z","caller":"etcdserver/util.go:170","msg":"apply request took too long","took":"1.2s","expected-duration":"100ms","prefix":"","request":"header:<ID:1 > put:<key:\"/a\" value_size:3 >","response":"size:20"}`, "apply-took-too-long"},
		{"capnslog listing", `2026-11-25 10:00:00.000000 W | etcdserver: read-only range request "key:\"/registry/pods/\" range_end:\"/registry/pods0\" " with result "range_response_count:25000 size:3000000" took too long (1.5s) to execute`, "expensive-read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := parseLine(tc.line)
			if !ok {
				t.Fatalf("not parsed: %s", tc.line)
			}
			k, v := lookup(e.msg, e.errText)
			if k == nil {
				t.Fatalf("no key for %q", e.msg)
			}
			k, v = expensive(&e, k, v)
			if k.key != tc.want {
				t.Fatalf("key %s, want %s", k.key, tc.want)
			}
			if d, ok := e.field(v.field); !ok || d <= 0 {
				if d, ok = v.tookIn(e.msg); !ok || d <= 0 {
					t.Errorf("no duration from %q", tc.line)
				}
			}
		})
	}
}
